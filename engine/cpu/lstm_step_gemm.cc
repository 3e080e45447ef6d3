// LstmStepGemm (lstm_step_gemm.h): oneDNN matmul with weights packed once per kernel call, or
// cblas_sgemm per step.
#include "engine/cpu/lstm_step_gemm.h"
#include "engine/core/omp_threads.h"

#include <cblas.h>

#include <cstdlib>
#include <string>

#ifdef TANDEM_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace tandem::cpu {

#ifdef TANDEM_HAVE_ONEDNN
struct LstmStepGemm::OneDnn {
  int threads;
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::matmul prim;
  dnnl::memory src, wts, dst;
};

#else
struct LstmStepGemm::OneDnn {};
#endif

LstmStepGemm::LstmStepGemm(int64_t M, int64_t K, int64_t N, const float* W, bool w_transposed, int threads)
    : M_(M), K_(K), N_(N), W_(W), w_transposed_(w_transposed) {
#ifdef TANDEM_HAVE_ONEDNN
  if (M <= 0 || N <= 0 || K <= 0) return;
  // TANDEM_LSTM_ONEDNN=0: cblas_sgemm per step in a oneDNN build, to compare the two in one run.
  if (const char* e = std::getenv("TANDEM_LSTM_ONEDNN"); e && std::string(e) == "0") return;
  using dnnl::memory;
  using tag = memory::format_tag;
  try {
    auto d = std::make_unique<OneDnn>();
    d->threads = threads;
    with_omp_threads(threads, [&] {
      memory::desc a_md({M, K}, memory::data_type::f32, tag::ab);
      memory::desc w_any({K, N}, memory::data_type::f32, tag::any);  // the library picks the packing
      memory::desc w_user({K, N}, memory::data_type::f32, w_transposed ? tag::ba : tag::ab);
      memory::desc c_md({M, N}, memory::data_type::f32, tag::ab);
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, w_any, c_md), d->eng);
      d->prim = dnnl::matmul(pd);
      d->src = memory(a_md, d->eng, DNNL_MEMORY_NONE);
      d->dst = memory(c_md, d->eng, DNNL_MEMORY_NONE);
      memory user(w_user, d->eng, const_cast<float*>(W));  // read only
      d->wts = memory(pd.weights_desc(), d->eng);
      dnnl::reorder(user, d->wts).execute(d->strm, user, d->wts);
      d->strm.wait();
    });
    dnnl_ = std::move(d);
  } catch (const dnnl::error&) {
    dnnl_.reset();  // a shape or machine oneDNN declines: cblas_sgemm per step
  }
#else
  (void)threads;
#endif
}

LstmStepGemm::~LstmStepGemm() = default;

void LstmStepGemm::run(const float* A, float* C) {
  if (M_ <= 0 || N_ <= 0) return;
#ifdef TANDEM_HAVE_ONEDNN
  if (dnnl_) {
    OneDnn& d = *dnnl_;
    d.src.set_data_handle(const_cast<float*>(A));  // read only
    d.dst.set_data_handle(C);
    with_omp_threads(d.threads, [&] {
      d.prim.execute(d.strm, {{DNNL_ARG_SRC, d.src}, {DNNL_ARG_WEIGHTS, d.wts}, {DNNL_ARG_DST, d.dst}});
      d.strm.wait();
    });
    return;
  }
#endif
  const int ldw = int(w_transposed_ ? K_ : N_);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, w_transposed_ ? CblasTrans : CblasNoTrans, int(M_), int(N_), int(K_),
              1.0f, A, int(K_ > 0 ? K_ : 1), W_, ldw > 0 ? ldw : 1, 0.0f, C, int(N_));
}

}  // namespace tandem::cpu
