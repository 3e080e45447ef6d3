// cuDNN LSTM impls (see lstm_cudnn.h). A plan (RNN, dropout and state descriptors, weight layout verified) is cached
// per device and shape; the workspace is sized exactly by cudnnGetRNNTempSpaceSizes for the call's batch and lengths.
// The training forward writes cuDNN's reserve space into lstm_fwd's reserve output, whose length the shape rule took
// from the sizer registered here (cuDNN's need at full lengths, so every call fits); lstm_bwd hands a copy of it to
// BackwardData_v8 / BackwardWeights_v8 (cuDNN writes into the reserve in BackwardData, and the operand is an immutable
// value that a remat recompute or a second backward may read again) and never re-runs the forward. Nothing waits for
// the device: cuDNN runs on the default stream, where the pool also orders the frees of the call's workspace and
// reserve (cuda_memory.h), and descriptors are host objects cuDNN has finished with when the call returns (as jaxlib
// destroys its own right after the call).
#include "engine/cuda/lstm_cudnn.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "engine/prims/lstm.h"

#if TANDEM_HAVE_CUDNN
#include "engine/core/check_cudnn.h"
#include "engine/cuda/cublas_env.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/cuda_info.h"
#include "engine/cuda/cuda_memory.h"

namespace tandem {
namespace {

cudnnHandle_t cudnn_handle(int index) {
  static std::mutex mu;
  static std::map<int, cudnnHandle_t> handles;  // never destroyed (see cublas_handle)
  std::lock_guard<std::mutex> lock(mu);
  auto it = handles.find(index);
  if (it != handles.end()) return it->second;
  cudnnHandle_t h;
  default_cublas_workspace_config();  // cuDNN may run its GEMMs through cuBLAS: same setting
  CUDNN_CHECK(cudnnCreate(&h));
  handles[index] = h;
  return h;
}

struct Plan {
  cudnnRNNDescriptor_t rnn = nullptr;
  cudnnDropoutDescriptor_t dropout = nullptr;
  cudnnTensorDescriptor_t state = nullptr;  // [S, B, H]
  size_t weight_bytes = 0;
  bool verified = false;
};

using PlanKey = std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t, bool, bool>;

// Checks that every matrix and bias sits where the packed layout puts it.
void verify_layout(cudnnHandle_t h, const Plan& plan, const LstmConfig& c, const void* w) {
  LstmWeightLayout lay = lstm_weight_layout(c.input, c.hidden, c.layers, c.bidirectional);
  cudnnTensorDescriptor_t md, bd;
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&md));
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&bd));
  const char* base = static_cast<const char*>(w);
  const int64_t H = c.hidden;
  std::string err;
  for (int64_t p = 0; p < c.pseudo_layers() && err.empty(); ++p)
    for (int id = 0; id < 8; ++id) {  // 0-3: W_ih gates i f g o; 4-7: W_hh gates
      void *m = nullptr, *b = nullptr;
      CUDNN_CHECK(cudnnGetRNNWeightParams(h, plan.rnn, int32_t(p), plan.weight_bytes, w, id, md, &m, bd, &b));
      const LstmWeightSlot& ms = id < 4 ? lay.w_ih[p] : lay.w_hh[p];
      const LstmWeightSlot& bs = id < 4 ? lay.b_ih[p] : lay.b_hh[p];
      int64_t gate = id % 4;
      const char* want_m = base + 4 * (ms.offset + gate * H * ms.cols);
      const char* want_b = base + 4 * (bs.offset + gate * H);
      if (m != want_m || b != want_b) {
        err = cat("cuDNN weight layout mismatch at pseudo-layer ", p, " linLayerID ", id, ": matrix at byte ",
                  static_cast<const char*>(m) - base, " (expected ", want_m - base, "), bias at byte ",
                  static_cast<const char*>(b) - base, " (expected ", want_b - base, ")");
        break;
      }
    }
  cudnnDestroyTensorDescriptor(md);
  cudnnDestroyTensorDescriptor(bd);
  if (!err.empty()) throw Error(ErrorKind::internal, err, "the packed layout of jax.experimental.rnn no longer matches this cuDNN");
}

Plan& plan_for(int dev, const LstmConfig& c, bool tf32, const void* w) {
  static std::mutex mu;
  static std::map<PlanKey, std::unique_ptr<Plan>> cache;
  std::lock_guard<std::mutex> lock(mu);
  PlanKey key{dev, c.batch, c.seq, c.input, c.hidden, c.layers, c.bidirectional, tf32};
  auto& slot = cache[key];
  cudnnHandle_t h = cudnn_handle(dev);
  if (!slot) {
    auto p = std::make_unique<Plan>();
    CUDNN_CHECK(cudnnCreateDropoutDescriptor(&p->dropout));
    CUDNN_CHECK(cudnnSetDropoutDescriptor(p->dropout, h, 0.0f, nullptr, 0, 0));
    CUDNN_CHECK(cudnnCreateRNNDescriptor(&p->rnn));
    CUDNN_CHECK(cudnnSetRNNDescriptor_v8(
        p->rnn, CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS,
        c.bidirectional ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT,
        CUDNN_DATA_FLOAT, tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH, int32_t(c.input), int32_t(c.hidden),
        int32_t(c.hidden), int32_t(c.layers), p->dropout, CUDNN_RNN_PADDED_IO_ENABLED));
    CUDNN_CHECK(cudnnCreateTensorDescriptor(&p->state));
    int dims[3] = {int(c.pseudo_layers()), int(c.batch), int(c.hidden)};
    int strides[3] = {int(c.batch * c.hidden), int(c.hidden), 1};
    CUDNN_CHECK(cudnnSetTensorNdDescriptor(p->state, CUDNN_DATA_FLOAT, 3, dims, strides));
    CUDNN_CHECK(cudnnGetRNNWeightSpaceSize(h, p->rnn, &p->weight_bytes));
    size_t want = size_t(4 * get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional));
    if (p->weight_bytes != want)
      throw Error(ErrorKind::internal, cat("cuDNN weight space is ", p->weight_bytes,
                                           " bytes; the packed layout has ", want));
    slot = std::move(p);
  }
  if (!slot->verified && w) {  // w null: sizing only (the reserve sizer), nothing to verify
    verify_layout(h, *slot, c, w);
    slot->verified = true;
  }
  return *slot;
}

// Per-call pieces: data descriptors for this call's lengths, workspace and reserve.
struct Call {
  cudnnRNNDataDescriptor_t x = nullptr, y = nullptr;
  Tensor work, reserve;
  size_t work_bytes = 0, reserve_bytes = 0;
  ~Call() {
    if (x) cudnnDestroyRNNDataDescriptor(x);
    if (y) cudnnDestroyRNNDataDescriptor(y);
  }
};

Tensor device_bytes(size_t bytes, Device d) {
  return Tensor::empty({int64_t((bytes + 3) / 4)}, DType::f32, d);
}

// Data descriptors for these lengths and the temp-space sizes in `mode`; allocates the
// workspace (the reserve is the caller's: lstm_fwd's output or lstm_bwd's copy).
void describe(Call& k, cudnnHandle_t h, const Plan& plan, const LstmConfig& c,
              const std::vector<int32_t>& lens, cudnnForwardMode_t mode) {
  float fill = 0.0f;
  CUDNN_CHECK(cudnnCreateRNNDataDescriptor(&k.x));
  CUDNN_CHECK(cudnnCreateRNNDataDescriptor(&k.y));
  CUDNN_CHECK(cudnnSetRNNDataDescriptor(k.x, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED,
                                        int(c.seq), int(c.batch), int(c.input), lens.data(), &fill));
  CUDNN_CHECK(cudnnSetRNNDataDescriptor(k.y, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, int(c.seq),
                                        int(c.batch), int(c.dirs() * c.hidden), lens.data(), &fill));
  CUDNN_CHECK(cudnnGetRNNTempSpaceSizes(h, plan.rnn, mode, k.x, &k.work_bytes, &k.reserve_bytes));
}

void prepare(Call& k, cudnnHandle_t h, const Plan& plan, const LstmConfig& c,
             const std::vector<int32_t>& lens, cudnnForwardMode_t mode, Device d) {
  describe(k, h, plan, c, lens, mode);
  k.work = device_bytes(k.work_bytes, d);
}

// The reserve operand/output must hold what cuDNN asks for this call.
void check_reserve_fits(const Call& k, const Tensor& reserve) {
  if (k.reserve_bytes > size_t(reserve.nbytes()))
    throw Error(ErrorKind::internal,
                cat("cuDNN asks ", k.reserve_bytes, " reserve bytes; lstm_fwd's reserve holds ", reserve.nbytes()),
                "the reserve was sized for another GPU or cuDNN: build the program in this process");
}

struct Setup {
  LstmConfig c;
  bool tf32;
  int dev;
  cudnnHandle_t h;
  std::vector<int32_t> lens;
};

Setup setup(const std::vector<Tensor>& f, const Params& p) {
  std::vector<AType> t;
  for (const Tensor& x : f) t.push_back(x.type());
  Setup s{lstm_config(t, p), lstm_allow_tf32(p.get_string("precision", "HIGHEST")), f[0].device().index, nullptr, {}};
  // cuDNN's data descriptors take the lengths on the host (so does jaxlib's RNN kernel,
  // which copies them back and synchronises on every call): read once per buffer instead.
  s.lens = checked_lstm_lengths(cuda_host_mirror(f[4]), s.c);
  use_cuda_device(s.dev);
  s.h = cudnn_handle(s.dev);
  return s;
}

// lstm_bwd(dy, dh_n, dc_n, x, h0, c0, w, seq_lengths, y, reserve) from the forward's reserve.
std::vector<Tensor> backward(const std::vector<Tensor>& in, const Params& p, Tensor* dw_acc) {
  std::vector<Tensor> f(in.begin() + 3, in.begin() + 8);
  Setup s = setup(f, p);
  Device d = f[0].device();
  Plan& plan = plan_for(s.dev, s.c, s.tf32, f[3].raw());
  Call k;
  prepare(k, s.h, plan, s.c, s.lens, CUDNN_FWD_MODE_TRAINING, d);
  check_reserve_fits(k, in[9]);
  const Tensor& y = in[8];
  k.reserve = device_bytes(k.reserve_bytes, d);
  if (k.reserve_bytes)
    CUDA_CHECK(cudaMemcpyAsync(k.reserve.raw(), in[9].raw(), k.reserve_bytes, cudaMemcpyDeviceToDevice, 0));
  Tensor dx = Tensor::empty(f[0].shape(), DType::f32, d);
  // cuDNN writes dx only at a row's valid steps (paddingFill is for outputs of the forward):
  // the padded steps would keep whatever the pool's block held. They are 0, as JAX's
  // gradient of the masked steps is (dh0 and dc0 are written for every row: lengths >= 1).
  CUDA_CHECK(cudaMemsetAsync(dx.raw(), 0, dx.nbytes(), 0));
  Tensor dh0 = Tensor::empty(f[1].shape(), DType::f32, d), dc0 = Tensor::empty(f[2].shape(), DType::f32, d);
  CUDNN_CHECK(cudnnRNNBackwardData_v8(s.h, plan.rnn, f[4].data<int32_t>(), k.y, y.raw(), in[0].raw(), k.x, dx.raw(),
                                      plan.state, f[1].raw(), in[1].raw(), dh0.raw(), plan.state, f[2].raw(),
                                      in[2].raw(), dc0.raw(), plan.weight_bytes, f[3].raw(), k.work_bytes, k.work.raw(),
                                      k.reserve_bytes, k.reserve.raw()));
  Tensor dw;
  if (dw_acc) {
    dw = *dw_acc;
  } else {
    dw = Tensor::empty(f[3].shape(), DType::f32, d);
    CUDA_CHECK(cudaMemsetAsync(dw.raw(), 0, dw.nbytes(), 0));  // BackwardWeights adds into dw
  }
  CUDNN_CHECK(cudnnRNNBackwardWeights_v8(s.h, plan.rnn, CUDNN_WGRAD_MODE_ADD, f[4].data<int32_t>(), k.x, f[0].raw(),
                                         plan.state, f[1].raw(), k.y, y.raw(), plan.weight_bytes, dw.raw(),
                                         k.work_bytes, k.work.raw(), k.reserve_bytes, k.reserve.raw()));
  return {dx, dh0, dc0, dw};
}

}  // namespace

std::string lstm_cudnn_math_type(const std::string& precision) {
  return lstm_allow_tf32(precision) ? "CUDNN_DEFAULT_MATH (TF32 allowed)" : "CUDNN_FMA_MATH (no TF32)";
}

namespace cuda_impl {

std::vector<Tensor> lstm_fwd_cudnn(const std::vector<Tensor>& f, const Params& p) {
  Setup s = setup(f, p);
  Device d = f[0].device();
  Plan& plan = plan_for(s.dev, s.c, s.tf32, f[3].raw());
  const bool training = p.get_bool("training", false);
  Call k;
  prepare(k, s.h, plan, s.c, s.lens, training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, d);
  Tensor y = Tensor::empty({s.c.batch, s.c.seq, s.c.dirs() * s.c.hidden}, DType::f32, d);
  Tensor hn = Tensor::empty(f[1].shape(), DType::f32, d), cn = Tensor::empty(f[2].shape(), DType::f32, d);
  if (training) {
    k.reserve = Tensor::empty({lstm_reserve_floats(s.c, p.get_string("precision", "HIGHEST"))}, DType::f32, d);
    check_reserve_fits(k, k.reserve);
    // The bytes cuDNN does not use are zeroed, so the output is fully defined.
    CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(k.reserve.raw()) + k.reserve_bytes, 0,
                               size_t(k.reserve.nbytes()) - k.reserve_bytes, 0));
  }
  CUDNN_CHECK(cudnnRNNForward(s.h, plan.rnn, training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE,
                              f[4].data<int32_t>(), k.x, f[0].raw(), k.y, y.raw(), plan.state, f[1].raw(),
                              hn.raw(), plan.state, f[2].raw(), cn.raw(), plan.weight_bytes, f[3].raw(),
                              k.work_bytes, k.work.raw(), k.reserve_bytes, training ? k.reserve.raw() : nullptr));
  if (training) return {y, hn, cn, k.reserve};
  return {y, hn, cn};
}

std::vector<Tensor> lstm_bwd_cudnn(const std::vector<Tensor>& in, const Params& p) {
  return backward(in, p, nullptr);
}

std::vector<Tensor> lstm_bwd_cudnn_accumulate(const std::vector<Tensor>& in, const Params& p, Tensor& dw) {
  std::vector<Tensor> r = backward(in, p, &dw);
  r.pop_back();
  return r;
}

}  // namespace cuda_impl

// cuDNN's training reserve for these sizes at full lengths (padded IO: the most any call of
// this shape needs) on device 0, in floats; 0 without a visible GPU.
int64_t cudnn_reserve_floats(const LstmConfig& c, bool tf32) {
  if (cuda_device_count() == 0 || c.batch * c.seq == 0) return 0;
  int current = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  use_cuda_device(0);
  Plan& plan = plan_for(0, c, tf32, nullptr);
  Call k;
  describe(k, cudnn_handle(0), plan, c, std::vector<int32_t>(size_t(c.batch), int32_t(c.seq)), CUDNN_FWD_MODE_TRAINING);
  use_cuda_device(current);  // a shape rule leaves the caller's device as it found it
  return int64_t((k.reserve_bytes + 3) / 4);
}

void register_lstm_cudnn_impls() {
  set_lstm_backend_reserve_sizer(cudnn_reserve_floats);
  mutable_primitive("lstm_fwd").cuda = [](const std::vector<Tensor>& in, const Params& p, EvalContext&) {
    return cuda_impl::lstm_fwd_cudnn(in, p);
  };
  mutable_primitive("lstm_bwd").cuda = [](const std::vector<Tensor>& in, const Params& p, EvalContext&) {
    return cuda_impl::lstm_bwd_cudnn(in, p);
  };
}

}  // namespace tandem

#else  // built without cuDNN: lstm_fwd / lstm_bwd report "unsupported" on CUDA

namespace tandem {
// No cuDNN: no impls and no reserve sizer, so the reserve has the CPU kernel's layout.
void register_lstm_cudnn_impls() {}
std::string lstm_cudnn_math_type(const std::string& precision) {
  return lstm_allow_tf32(precision) ? "TF32 allowed" : "no TF32";
}
}  // namespace tandem

#endif
