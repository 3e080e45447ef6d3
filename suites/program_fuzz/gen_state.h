// The state a program generator grows: a Builder, the pool of values made so far, the random
// source and the limits. Generator rows (gen_rows.h) read operands from the pool and add their
// results to it; nested rows (scan, checkpoint) grow a body in a GenState of their own.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/builder.h"
#include "suites/program_fuzz/fuzz_rng.h"

namespace tandem::fuzz {

// The named axis the generated collectives run over (bound with coll_axis_size members: one,
// or the vmapped axis itself when the chain vmaps with this name).
inline constexpr const char* kCollectiveAxis = "i";

struct GenConfig {
  int eqns = 8;        // equations at the top level
  int body_eqns = 4;   // equations in a scan or checkpoint body
  int max_depth = 2;   // nesting of scan / checkpoint
  int max_rank = 3;
  int max_dim = 5;
  int64_t coll_axis_size = 1;
  bool collectives = true;   // psum … axis_index rows
  bool lossy_dots = true;    // dot presets that round their inputs (not in reverse-mode chains)
  bool scan_losses = true;   // a scan's ys consumed only by a reduction (what hoisting rewrites)
  // bf16 and f16 values. Off in reverse-mode chains: the reference's tape runs the backward
  // in f64, where a narrow backward overflows (0·inf) or cancels that it cannot model.
  bool narrow_floats = true;
};

class GenState {
 public:
  GenState(Rng& rng, const GenConfig& cfg, int depth, bool may_add_inputs)
      : rng(rng), cfg(cfg), depth(depth), may_add_inputs(may_add_inputs) {}
  Rng& rng;
  GenConfig cfg;
  int depth;
  bool may_add_inputs;  // a body's inputs are fixed by its signature; the top level's are not
  Builder b;
  std::vector<Value> pool;  // every value made so far, inputs and equation outputs

  Shape random_shape(int min_rank = 0);
  // A permutation of [0, n): half the time a rotation (i -> i + r mod n, r != 0), which for
  // n >= 3 is not its own inverse, so a rule that applies the inverse where it means the
  // permutation (or the reverse) is seen; otherwise uniform.
  std::vector<int64_t> random_permutation(int64_t n);
  DType random_float();  // f32 mostly; f64, bf16, f16
  DType random_dtype();  // floats mostly; i32 and bool too
  // A value of the pool satisfying pred, or nullopt.
  std::optional<Value> pick(const std::function<bool(const Value&)>& pred);
  std::optional<Value> pick_float() { return pick([](const Value& v) { return is_floating(v.dtype()); }); }
  // A value of exactly type t: from the pool, a new input, a scalar literal, or fit() of a
  // pool value when inputs are fixed.
  Value operand(const AType& t);
  Value new_input(const AType& t);
  // Any value made into type t: converted, summed to a scalar and broadcast when the shape
  // differs (always legal, so a body can end with its carry's type).
  Value fit(Value v, const AType& t);
  void keep(const Value& v) { pool.push_back(v); }
  void keep(const std::vector<Value>& vs) { pool.insert(pool.end(), vs.begin(), vs.end()); }
};

// Runs `emit` and reports whether it bound its equations; a shape rule's bad-input error
// (a choice the primitive refuses, e.g. a negative axis it does not take) is a no.
bool try_emit(const std::function<void()>& emit);

// An equation whose axes are drawn in negative form: `negative` binds it so, `plain` with the
// same axes non-negative. Where the primitive takes negative axes the refusal of the negative
// form is not a fallback: when the plain form binds, the engine failed to normalize what it
// takes, and that is thrown (the case fails). Otherwise (or when unwanted) the plain form.
bool emit_with_negative_axes(bool takes_negative, bool wanted, const std::function<void()>& negative,
                             const std::function<void()>& plain);

}  // namespace tandem::fuzz
