// GenState: random shapes and dtypes, and how an operand of a wanted type is found or made.
#include "suites/program_fuzz/gen_state.h"

#include <algorithm>

#include "engine/core/error.h"

namespace tandem::fuzz {

Shape GenState::random_shape(int min_rank) {
  const int rank = int(rng.in(min_rank, std::max(min_rank, cfg.max_rank)));
  Shape s;
  for (int d = 0; d < rank; ++d) {
    // Sizes 1 and odd ones are where broadcasting and vector tails go wrong; 0 is rare.
    const int64_t size = rng.chance(0.03) ? 0 : rng.chance(0.3) ? 1 : rng.in(2, cfg.max_dim);
    s.push_back(size);
  }
  return s;
}

std::vector<int64_t> GenState::random_permutation(int64_t n) {
  std::vector<int64_t> p(static_cast<size_t>(std::max<int64_t>(n, 0)));
  if (n >= 2 && rng.chance(0.5)) {
    const int64_t r = rng.in(1, n - 1);
    for (int64_t i = 0; i < n; ++i) p[size_t(i)] = (i + r) % n;
    return p;
  }
  for (int64_t i = 0; i < n; ++i) p[size_t(i)] = i;
  rng.shuffle(p);
  return p;
}

DType GenState::random_float() {
  const int64_t r = rng.in(0, 9);
  if (!cfg.narrow_floats) return r < 7 ? DType::f32 : DType::f64;
  return r < 6 ? DType::f32 : r < 8 ? DType::f64 : r < 9 ? DType::bf16 : DType::f16;
}

DType GenState::random_dtype() {
  const int64_t r = rng.in(0, 9);
  return r < 8 ? random_float() : r < 9 ? DType::i32 : DType::pred;
}

std::optional<Value> GenState::pick(const std::function<bool(const Value&)>& pred) {
  std::vector<Value> hits;
  for (const Value& v : pool)
    if (pred(v)) hits.push_back(v);
  if (hits.empty()) return std::nullopt;
  // Favour recent values, so programs are chains rather than many shallow branches.
  if (rng.chance(0.5)) return hits.back();
  return rng.pick(hits);
}

Value GenState::new_input(const AType& t) {
  Value v = b.input(t.shape, t.dtype);
  keep(v);
  return v;
}

Value GenState::operand(const AType& t) {
  if (rng.chance(0.7))
    if (auto v = pick([&](const Value& x) { return x.type() == t; })) return *v;
  if (t.shape.empty() && rng.chance(0.3)) {
    const double v = t.dtype == DType::pred ? double(rng.in(0, 1)) : double(rng.in(-3, 3)) * (is_floating(t.dtype) ? 0.5 : 1);
    return b.literal(v, t.dtype);
  }
  if (may_add_inputs || pool.empty()) return new_input(t);
  return fit(rng.pick(pool), t);
}

Value GenState::fit(Value v, const AType& t) {
  if (v.dtype() != t.dtype) v = convert_element_type(v, t.dtype);
  if (v.shape() == t.shape) return v;
  std::vector<int64_t> all;
  for (int d = 0; d < v.rank(); ++d) all.push_back(d);
  if (t.dtype == DType::pred) {
    // Bools do not sum: reduce as i32 and compare, which is a bool again.
    Value n = v.rank() ? reduce_sum(convert_element_type(v, DType::i32), all) : convert_element_type(v, DType::i32);
    v = compare(n, b.literal(0, DType::i32), "ne");
  } else if (v.rank()) {
    v = reduce_sum(v, all);
  }
  return broadcast_in_dim(v, t.shape, {});
}

bool try_emit(const std::function<void()>& emit) {
  try {
    emit();
    return true;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::bad_input) return false;
    throw;
  }
}

}  // namespace tandem::fuzz

namespace tandem::fuzz {

bool emit_with_negative_axes(bool takes_negative, bool wanted, const std::function<void()>& negative,
                             const std::function<void()>& plain) {
  if (!takes_negative || !wanted) return try_emit(plain);
  std::string why;
  try {
    negative();
    return true;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::bad_input) throw;
    why = e.message();
  }
  if (!try_emit(plain)) return false;  // the choice itself is refused, whatever its axes' form
  throw Error(ErrorKind::invariant, "the engine refused negative axes it takes in non-negative form: " + why,
              "shape rules normalize negative axes (normalize_axis), as JAX's wrappers do");
}

}  // namespace tandem::fuzz
