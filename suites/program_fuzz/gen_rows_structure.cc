// Generator rows of the structural primitives (rev, pad and cumsum too), the reductions and dot_general. Axes are
// drawn in negative form half the time where the primitive takes them (with_axes), and the
// engine must then take them: a refusal is its failure, not a fallback.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {
namespace {

std::vector<int64_t> range(int64_t n) {
  std::vector<int64_t> r(static_cast<size_t>(n));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

// A random subset of [0, n), in increasing order.
std::vector<int64_t> subset(Rng& rng, int64_t n) {
  std::vector<int64_t> r;
  for (int64_t i = 0; i < n; ++i)
    if (rng.chance(0.5)) r.push_back(i);
  return r;
}

std::vector<int64_t> negated(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> r;
  for (int64_t a : axes) r.push_back(a - rank);
  return r;
}

// Emits with negative axes half the time where the primitive takes them (every axis-taking
// primitive here but transpose and iota, which JAX also requires non-negative); a refusal
// of the negative form is then the engine's failure (emit_with_negative_axes), not a fallback.
bool with_axes(Rng& rng, const std::vector<int64_t>& axes, int64_t rank,
               const std::function<void(const std::vector<int64_t>&)>& emit, bool takes_negative = true) {
  return emit_with_negative_axes(takes_negative, rng.chance(0.5), [&] { emit(negated(axes, rank)); },
                                 [&] { emit(axes); });
}

std::optional<Value> pick_traced(GenState& s, bool numeric) {
  return s.pick([&](const Value& v) { return !numeric || v.dtype() != DType::pred; });
}

bool emit_broadcast(GenState& s) {
  auto x = pick_traced(s, false);
  if (!x) return false;
  // Never below the operand's rank (an all_gather can make rank 5): dims must stay distinct.
  const int64_t r = x->rank(), R = std::max<int64_t>(r, std::min<int64_t>(r + s.rng.in(0, 2), 4));
  std::vector<int64_t> dims = range(R);
  s.rng.shuffle(dims);
  dims.resize(size_t(r));
  std::sort(dims.begin(), dims.end());
  Shape out = s.random_shape(int(R));
  out.resize(size_t(R));
  for (int64_t i = 0; i < r; ++i) {
    const int64_t d = x->shape()[size_t(i)];
    // A size-1 dimension may grow (keepdims-style broadcasting); others keep their size.
    out[size_t(dims[size_t(i)])] = d == 1 && s.rng.chance(0.6) ? s.rng.in(1, s.cfg.max_dim) : d;
  }
  s.keep(broadcast_in_dim(*x, out, dims));
  return true;
}

bool emit_reshape(GenState& s) {
  auto x = pick_traced(s, false);
  if (!x) return false;
  int64_t n = num_elements(x->shape());
  Shape out;
  if (n == 0) {
    out = {0};
  } else {
    // Peel random divisors off n, then put the rest last; shuffle so size-1s land anywhere.
    for (int64_t k = 2; k <= n && out.size() < 3;)
      if (n % k == 0 && s.rng.chance(0.5)) { out.push_back(k); n /= k; } else ++k;
    if (n > 1 || s.rng.chance(0.3)) out.push_back(n);
    s.rng.shuffle(out);
  }
  s.keep(reshape(*x, out));
  return true;
}

bool emit_transpose(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0; });
  if (!x) return false;
  const std::vector<int64_t> perm = s.random_permutation(x->rank());
  return with_axes(s.rng, perm, x->rank(), [&](const std::vector<int64_t>& p) { s.keep(transpose(*x, p)); }, false);
}

bool emit_slice(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0; });
  if (!x) return false;
  std::vector<int64_t> start, limit, strides;
  for (int64_t d : x->shape()) {
    const int64_t a = s.rng.in(0, d), z = s.rng.in(a, d);
    start.push_back(a);
    limit.push_back(z);
    strides.push_back(s.rng.chance(0.6) ? 1 : s.rng.in(2, 3));
  }
  s.keep(slice(*x, start, limit, strides));
  return true;
}

// A scalar i32 start index: a literal (out of range on purpose sometimes: JAX clamps it), a
// traced scalar from the pool, or a new input.
Value start_index(GenState& s, int64_t size) {
  if (auto v = s.pick([](const Value& v) { return v.rank() == 0 && v.dtype() == DType::i32; }); v && s.rng.chance(0.4))
    return *v;
  return s.rng.chance(0.6) ? s.b.literal(double(s.rng.in(-2, size + 2)), DType::i32) : s.operand(AType{{}, DType::i32});
}

bool emit_dynamic_slice(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0; });
  if (!x) return false;
  std::vector<Value> starts;
  Shape sizes;
  for (int64_t d : x->shape()) {
    sizes.push_back(s.rng.in(0, d));
    starts.push_back(start_index(s, d));
  }
  return try_emit([&] {
    std::vector<Value> in{*x};
    in.insert(in.end(), starts.begin(), starts.end());
    s.keep(s.b.bind1("dynamic_slice", in, {{"slice_sizes", sizes}}));
  });
}

bool emit_dynamic_update_slice(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0; });
  if (!x) return false;
  std::vector<Value> in{*x};
  Shape upd;
  for (int64_t d : x->shape()) upd.push_back(s.rng.in(0, d));
  in.push_back(s.operand(AType{upd, x->dtype()}));
  for (int64_t d : x->shape()) in.push_back(start_index(s, d));
  return try_emit([&] { s.keep(s.b.bind1("dynamic_update_slice", in)); });
}

bool emit_concatenate(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0; });
  if (!x) return false;
  const int64_t axis = s.rng.in(0, x->rank() - 1);
  std::vector<Value> xs{*x};
  for (int64_t k = s.rng.in(1, 2); k > 0; --k) {
    AType t = x->type();
    t.shape[size_t(axis)] = s.rng.in(0, s.cfg.max_dim);
    xs.push_back(s.operand(t));
  }
  s.rng.shuffle(xs);
  return with_axes(s.rng, {axis}, x->rank(), [&](const std::vector<int64_t>& a) { s.keep(concatenate(xs, a[0])); });
}

bool emit_iota(GenState& s) {
  Shape shape = s.random_shape(1);
  DType t = s.random_dtype();
  if (t == DType::pred) t = DType::i32;
  const int64_t dim = s.rng.in(0, int64_t(shape.size()) - 1);
  return with_axes(s.rng, {dim}, int64_t(shape.size()),
                   [&](const std::vector<int64_t>& d) { s.keep(iota(s.b, t, shape, d[0])); }, false);  // as JAX's iota
}

bool emit_rev(GenState& s) {
  auto x = pick_traced(s, false);
  if (!x) return false;
  const std::vector<int64_t> dims = subset(s.rng, x->rank());
  return with_axes(s.rng, dims, x->rank(), [&](const std::vector<int64_t>& d) { s.keep(rev(*x, d)); });
}

// pad with low/high in [-2, 2] (negative crops, as lax.pad allows) and interior in [0, 2];
// a draw that would leave a dimension below size 0 is refused by the shape rule and retried.
bool emit_pad(GenState& s) {
  auto x = pick_traced(s, false);
  if (!x) return false;
  std::vector<PadDim> cfg;
  for (int64_t d : x->shape()) {
    const int64_t lo = s.rng.in(-std::min<int64_t>(d, 2), 2);
    cfg.push_back({lo, s.rng.in(-std::min<int64_t>(d + lo, 2), 2), s.rng.chance(0.6) ? 0 : s.rng.in(1, 2)});
  }
  Value v = s.operand(AType{{}, x->dtype()});
  return try_emit([&] { s.keep(pad(*x, v, cfg)); });
}

bool emit_cumsum(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0 && v.dtype() != DType::pred; });
  if (!x) return false;
  const int64_t axis = s.rng.in(0, x->rank() - 1);
  const bool reverse = s.rng.chance(0.5);
  return with_axes(s.rng, {axis}, x->rank(), [&](const std::vector<int64_t>& a) { s.keep(cumsum(*x, a[0], reverse)); });
}

GenRow reduction_row(const std::string& name) {
  return {[name](GenState& s) {
    auto x = pick_traced(s, true);
    if (!x) return false;
    const std::vector<int64_t> axes = subset(s.rng, x->rank());
    return with_axes(s.rng, axes, x->rank(), [&](const std::vector<int64_t>& a) {
      s.keep(s.b.bind1(name, {*x}, {{"axes", a}}));
    });
  }};
}

// Precision strings that round nothing (allowed in reverse-mode chains),
// then the presets that round their inputs (tolerances model them: fuzz_oracle.h).
const std::vector<std::string> kExactPrecisions = {"DEFAULT", "HIGHEST"};
const std::vector<std::string> kLossyPrecisions = {
    "HIGH", "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32",
    "TF32_TF32_F32_X3", "F16_F16_F32", "F16_F16_F16", "BF16_BF16_BF16", "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_ANY"};

// An f8 dot: each operand's format e4m3fn or e5m2. Half the time the operands are fresh
// inputs, which every reference run holds bit for bit, so the f8 rounding is judged exactly
// (fuzz_exact.h: a tie rounded the wrong way is an error, not noise); such an input may be
// quantized to sixteenths (floor(16x)/16, exact too), where in [1, 2) every odd sixteenth is
// an e4m3fn tie and every odd eighth an e5m2 one. Each operand may be scaled by a power of
// two that takes its values past its format's finite range (e4m3fn: 448, then NaN; e5m2:
// 57344, then Inf), the result scaled back, so the large values stay inside this dot
// (elsewhere they overflow f32 where the f64 reference does not).
bool emit_f8_dot(GenState& s, Value lhs, Value rhs, const DotDims& dims) {
  const F8Format formats[] = {F8Format::e4m3fn, F8Format::e5m2};
  const F8Operands f8{formats[s.rng.in(0, 1)], formats[s.rng.in(0, 1)]};
  auto fresh = [&](const AType& t) {
    Value x = s.new_input(t);
    return s.rng.chance(0.5) ? floor(x * 16.0) * 0.0625 : x;
  };
  if (s.may_add_inputs && s.rng.chance(0.5)) lhs = fresh(lhs.type()), rhs = fresh(rhs.type());
  int scaled = 0;  // the exponent of the scale applied, taken back from the result
  auto past_range = [&](Value v, F8Format f) {
    if (v.dtype() == DType::f16 || !s.rng.chance(0.5)) return v;  // f16 itself ends at 65504
    const int k = f == F8Format::e4m3fn ? 8 : 15;                    // |v| < 2 reaches 512 / 65536
    scaled += k;
    return v * std::ldexp(1.0, k);
  };
  lhs = past_range(lhs, f8.lhs), rhs = past_range(rhs, f8.rhs);
  const std::string precision = s.rng.chance(0.5) ? "ANY_F8_ANY_F8_F32" : "ANY_F8_ANY_F8_ANY";
  return try_emit([&] {
    Value d = dot_general(lhs, rhs, dims, precision, std::nullopt, f8);
    s.keep(scaled ? d * std::ldexp(1.0, -scaled) : d);
  });
}

bool emit_dot_general(GenState& s) {
  auto lhs = s.pick([](const Value& v) { return is_floating(v.dtype()); });
  if (!lhs) return false;
  const int64_t r = lhs->rank();
  std::vector<int64_t> order = range(r);
  s.rng.shuffle(order);
  const int64_t nc = s.rng.in(0, std::min<int64_t>(2, r)), nb = s.rng.in(0, std::min<int64_t>(1, r - nc));
  DotDims dims;
  dims.lhs_contract.assign(order.begin(), order.begin() + nc);
  dims.lhs_batch.assign(order.begin() + nc, order.begin() + nc + nb);
  // rhs: the batch dims, the contracting dims and up to two free dims, in a random order.
  Shape rhs_sizes;
  std::vector<int> role;  // 0 batch k, 1 contract k, 2 free
  for (int64_t a : dims.lhs_batch) { rhs_sizes.push_back(lhs->shape()[size_t(a)]); role.push_back(0); }
  for (int64_t a : dims.lhs_contract) { rhs_sizes.push_back(lhs->shape()[size_t(a)]); role.push_back(1); }
  for (int64_t k = s.rng.in(0, 2); k > 0; --k) { rhs_sizes.push_back(s.rng.in(1, s.cfg.max_dim)); role.push_back(2); }
  std::vector<int64_t> place = range(int64_t(rhs_sizes.size()));
  s.rng.shuffle(place);
  Shape rhs_shape(rhs_sizes.size());
  int64_t nbatch = 0, ncon = 0;
  dims.rhs_batch.resize(size_t(nb));
  dims.rhs_contract.resize(size_t(nc));
  for (size_t i = 0; i < rhs_sizes.size(); ++i) {
    rhs_shape[size_t(place[i])] = rhs_sizes[i];
    if (role[i] == 0) dims.rhs_batch[size_t(nbatch++)] = place[i];
    if (role[i] == 1) dims.rhs_contract[size_t(ncon++)] = place[i];
  }
  Value rhs = s.operand(AType{rhs_shape, lhs->dtype()});
  const bool lossy = s.cfg.lossy_dots && s.rng.chance(0.5);
  // The preset of the operands' own type is exact too (F32_F32_F32 rounds f64 operands).
  std::string precision = s.rng.pick(lossy ? kLossyPrecisions : kExactPrecisions);
  if (lossy && s.rng.chance(0.3)) return emit_f8_dot(s, *lhs, rhs, dims);
  if (!lossy && s.rng.chance(0.3) && (lhs->dtype() == DType::f32 || lhs->dtype() == DType::f64))
    precision = lhs->dtype() == DType::f32 ? "F32_F32_F32" : "F64_F64_F64";
  std::optional<DType> preferred;
  if (s.rng.chance(0.2)) preferred = s.rng.chance(0.5) ? DType::f32 : DType::f64;
  // A preset the operands' dtypes do not take is a bad-input shape error: try the default.
  if (try_emit([&] { s.keep(dot_general(*lhs, rhs, dims, precision, preferred)); })) return true;
  return try_emit([&] { s.keep(dot_general(*lhs, rhs, dims)); });
}

}  // namespace

void add_structure_rows(GenTable& t) {
  t.rows["broadcast_in_dim"] = {emit_broadcast};
  t.rows["reshape"] = {emit_reshape};
  t.rows["transpose"] = {emit_transpose};
  t.rows["slice"] = {emit_slice};
  t.rows["dynamic_slice"] = {emit_dynamic_slice};
  t.rows["dynamic_update_slice"] = {emit_dynamic_update_slice};
  t.rows["concatenate"] = {emit_concatenate};
  t.rows["iota"] = {emit_iota, 0.5};
  t.rows["reduce_sum"] = reduction_row("reduce_sum");
  t.rows["reduce_max"] = reduction_row("reduce_max");
  t.rows["reduce_min"] = reduction_row("reduce_min");
  t.rows["rev"] = {emit_rev};
  t.rows["pad"] = {emit_pad};
  t.rows["cumsum"] = {emit_cumsum};
  t.rows["dot_general"] = {emit_dot_general, 2};
}

}  // namespace tandem::fuzz
