// Elementwise fusion: the plan (runs of equations) and the blocked loop that runs one.
#include "engine/ir/fusion.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>

#include "engine/core/omp_threads.h"
#include "engine/ir/primitive.h"

namespace tandem {
namespace {

// Elements per block: a run's scratch (one block per value it keeps to itself) stays in L1/L2. A
// multiple of 64, so every block but the last starts where a whole-array vector loop starts a full vector.
constexpr int64_t kBlock = 2048;
// Element operations (elements × equations) per thread before a run is shared: 50–100 µs of work, enough to pay a
// passive wake-up (OMP_WAIT_POLICY=PASSIVE, the case workers') and, on a busy machine, a helper thread the OS runs
// late (1 << 15 lost up to 2× on the T25 B32 LSTM at load 9); 1 << 18 kept the T100 B128 LSTM's gate run on one.
constexpr int64_t kMinWorkPerThread = int64_t(1) << 17;

// The block kernels by primitive, filled at registration, read-only after.
std::unordered_map<const Primitive*, BlockKernel>& kernels() {
  static auto& k = *new std::unordered_map<const Primitive*, BlockKernel>;
  return k;
}

bool joins(const Eqn& e, const Shape& s) {
  if (!kernels().count(e.prim) || e.out.size() != 1 || e.in.size() > 3 || e.out[0]->type.shape != s) return false;
  return std::all_of(e.in.begin(), e.in.end(), [&](const Atom& a) { return a.type().rank() == 0 || a.type().shape == s; });
}

// Where a block of one value lies: in a full array (base, the block's offset added unless
// it is a rank-0 operand) or at an offset in the thread's scratch.
struct Slot {
  char* base = nullptr;
  int64_t scratch = -1;
  size_t elem = 0;
  bool scalar = false;
  void* at(int64_t start, char* scratch_base) const {
    return scratch >= 0 ? scratch_base + scratch : base + (scalar ? 0 : start * int64_t(elem));
  }
};

struct Step {
  const Eqn* eqn;
  const BlockKernel* kernel;
  Slot in[3], out;
  ElementBlock block;  // the operands' dtypes and ranks; pointers and n per block
};

int thread_count(int64_t blocks, int64_t work) {
#ifdef TANDEM_HAVE_ONEDNN
  if (!omp_in_parallel()) return int(std::clamp<int64_t>(std::min(blocks, work / kMinWorkPerThread), 1, cpu::worker_threads()));
#endif
  return 1;
}

// f(thread's index) on each of `threads` OpenMP threads, or f(0) on the caller alone.
template <class F>
void on_threads(int threads, F&& f) {
#ifdef TANDEM_HAVE_ONEDNN
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    f(omp_get_thread_num());
    return;
  }
#endif
  f(0);
}

void run_blocks(const std::vector<Step>& steps, int64_t n, int64_t scratch_bytes, int threads) {
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  // Thread r's share is the r-th of `threads` ranges of blocks, so a run repeated (a scan's steps) has each
  // thread touch what it touched the step before, still in its core's cache (dealt from one counter, the scaled
  // LSTMs' gradients took 5-20 % longer on 2 threads: lab/pages/program.md). A thread done with its share claims
  // what is left of the others': a thread the OS runs late (a busy machine) finds its share done.
  std::unique_ptr<std::atomic<int64_t>[]> next(new std::atomic<int64_t>[size_t(threads)]);
  for (int r = 0; r < threads; ++r) next[r] = r * blocks / threads;
  std::mutex mu;
  std::exception_ptr error;  // an exception may not leave an OpenMP region: kept, rethrown after
  on_threads(threads, [&](int me) {
    try {
      std::unique_ptr<char[]> raw(new char[size_t(scratch_bytes) + 64]);
      char* scratch = raw.get() + (64 - reinterpret_cast<uintptr_t>(raw.get()) % 64);
      for (int r = me, k = 0; k < threads; ++k, r = (r + 1) % threads)
        for (int64_t blk = next[r]++; blk < (r + 1) * blocks / threads; blk = next[r]++)
          for (const Step& s : steps) {
            ElementBlock b = s.block;
            const int64_t start = blk * kBlock;
            for (size_t i = 0; i < s.eqn->in.size(); ++i) b.in[i] = s.in[i].at(start, scratch);
            b.out = s.out.at(start, scratch);
            b.n = std::min(kBlock, n - start);
            (*s.kernel)(b, s.eqn->params);
          }
    } catch (...) {
      std::lock_guard<std::mutex> g(mu);
      if (!error) error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
}

}  // namespace

Impl whole_array_impl(ShapeRule shape, BlockKernel kernel) {
  return [shape, kernel](const std::vector<Tensor>& in, const Params& params, EvalContext&) {
    std::vector<AType> types;
    ElementBlock b;
    for (size_t k = 0; k < in.size(); ++k) {
      types.push_back(in[k].type());
      b.in[k] = in[k].raw(), b.scalar[k] = in[k].rank() == 0, b.types[k] = in[k].dtype();
    }
    const AType o = shape(types, params)[0];
    Tensor out = Tensor::empty(o.shape, o.dtype);
    b.out = out.raw(), b.n = out.numel();
    kernel(b, params);
    return std::vector<Tensor>{out};
  };
}

void register_elementwise(Primitive p, BlockKernel kernel) {
  if (!p.cpu) p.cpu = whole_array_impl(p.shape, kernel);
  const std::string name = p.name;
  register_primitive(std::move(p));
  kernels()[&primitive(name)] = std::move(kernel);
}

std::vector<size_t> plan_fusion(const Program& p, int64_t min_elements) {
  std::vector<size_t> end(p.eqns.size(), 0);
  for (size_t b = 0; b < p.eqns.size();) {
    const Eqn& first = p.eqns[b];
    size_t e = b;
    if (first.out.size() == 1)
      while (e < p.eqns.size() && joins(p.eqns[e], first.out[0]->type.shape)) ++e;
    const int64_t n = e > b ? num_elements(first.out[0]->type.shape) : 0;
    if (e - b >= 2 && n >= std::max<int64_t>(min_elements, 1)) end[b] = e;
    b = std::max(e, b + 1);
  }
  return end;
}

void run_fused(const Program& p, size_t begin, size_t end, const std::function<Tensor(const Atom&)>& value_of,
               const std::function<bool(const Var&)>& written, std::unordered_map<int64_t, Tensor>& env) {
  std::vector<Tensor> held;                 // the operands from outside, alive through the loop
  std::unordered_map<int64_t, Slot> made;   // the values the run makes
  std::vector<Step> steps;
  int64_t scratch_bytes = 0;
  for (size_t e = begin; e < end; ++e) {
    Step s{&p.eqns[e], &kernels().at(p.eqns[e].prim), {}, {}, {}};
    for (size_t k = 0; k < s.eqn->in.size(); ++k) {
      const Atom& a = s.eqn->in[k];
      s.block.types[k] = a.type().dtype;
      s.block.scalar[k] = a.type().rank() == 0;
      auto it = a.is_literal() ? made.end() : made.find(a.var->id);
      if (it != made.end()) {
        s.in[k] = it->second;
        continue;
      }
      const Tensor& t = held.emplace_back(value_of(a));
      s.in[k] = Slot{static_cast<char*>(t.raw()), -1, size_t(dtype_size(t.dtype())), t.rank() == 0};
    }
    const Var& v = s.eqn->out[0];
    s.out.elem = dtype_size(v->type.dtype);
    if (written(v)) {
      Tensor t = Tensor::empty(v->type.shape, v->type.dtype);
      s.out.base = static_cast<char*>(t.raw());
      env[v->id] = std::move(t);
    } else {
      s.out.scratch = scratch_bytes;
      scratch_bytes += (kBlock * int64_t(s.out.elem) + 63) / 64 * 64;
    }
    made[v->id] = s.out;
    steps.push_back(s);
  }
  const int64_t n = num_elements(p.eqns[begin].out[0]->type.shape);
  run_blocks(steps, n, scratch_bytes, thread_count((n + kBlock - 1) / kBlock, n * int64_t(end - begin)));
}

}  // namespace tandem
