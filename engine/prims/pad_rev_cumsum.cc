// rev, pad and cumsum (lax semantics; layouts in pad_rev_cumsum.h): registration, shape
// rules and CPU impls. rev and pad are strided copies (engine/cpu/strided_copy.h); cumsum
// accumulates along its axis in order, in the operand's own dtype as XLA's CPU reduce_window
// does (bf16/f16 round every partial sum: lax.cumsum of bf16 [256, 1, 1] is [256, 256, 256]),
// i32 wrapping.
#include "engine/prims/pad_rev_cumsum.h"

#include <algorithm>
#include <set>

#include "engine/cpu/dispatch.h"
#include "engine/cpu/strided_copy.h"
#include "engine/prims/primitive_of.h"

namespace tandem {

CopyPlan rev_plan(const Shape& x, const std::vector<int64_t>& dimensions) {
  CopyPlan c{x, row_major_strides(x), row_major_strides(x)};
  std::set<int> seen;
  for (int64_t d : dimensions) {
    const int a = normalize_axis(d, int(x.size()), "rev");
    if (!seen.insert(a).second) throw_bad_input(cat("rev: dimension ", d, " listed twice"), "list each dimension once");
    if (x[size_t(a)] > 0) c.src_base += (x[size_t(a)] - 1) * c.src_strides[size_t(a)];
    c.src_strides[size_t(a)] = -c.src_strides[size_t(a)];
  }
  return c;
}

PadConfig pad_config(const Params& p, int rank) {
  const std::vector<int64_t> flat = p.get_ints("padding_config");
  if (int64_t(flat.size()) != 3 * int64_t(rank))
    throw_bad_input(cat("pad: padding_config has ", flat.size(), " entries for an operand of rank ", rank),
                    "give a (low, high, interior) triple per dimension, flattened");
  PadConfig c;
  for (int d = 0; d < rank; ++d) {
    c.lo.push_back(flat[size_t(3 * d)]);
    c.hi.push_back(flat[size_t(3 * d + 1)]);
    c.interior.push_back(flat[size_t(3 * d + 2)]);
    if (c.interior.back() < 0)
      throw_bad_input(cat("pad: interior padding of dimension ", d, " is ", c.interior.back()), "interior padding must be >= 0");
  }
  return c;
}

Shape pad_out_shape(const Shape& x, const PadConfig& c) {
  Shape s;
  for (size_t d = 0; d < x.size(); ++d) {
    const int64_t dilated = x[d] == 0 ? 0 : 1 + (x[d] - 1) * (c.interior[d] + 1);
    s.push_back(c.lo[d] + c.hi[d] + dilated);
    if (s.back() < 0)
      throw_bad_input(cat("pad: dimension ", d, " of size ", x[d], " ends at size ", s.back(), " after padding"),
                      "negative low/high padding may remove at most the dimension's own elements");
  }
  return s;
}

CopyPlan pad_plan(const Shape& x, const PadConfig& c) {
  const Shape out = pad_out_shape(x, c), xs = row_major_strides(x), os = row_major_strides(out);
  CopyPlan p;
  for (size_t d = 0; d < x.size(); ++d) {
    const int64_t step = c.interior[d] + 1;
    // Operand index i lands at lo + i·step: keep the i with 0 <= lo + i·step < out.
    const int64_t first = c.lo[d] >= 0 ? 0 : (-c.lo[d] + step - 1) / step;
    const int64_t end = std::min(x[d], out[d] - c.lo[d] <= 0 ? 0 : (out[d] - c.lo[d] + step - 1) / step);
    p.shape.push_back(std::max<int64_t>(0, end - first));
    p.src_strides.push_back(xs[d]);
    p.dst_strides.push_back(os[d] * step);
    p.src_base += first * xs[d];
    p.dst_base += (c.lo[d] + first * step) * os[d];
  }
  return p;
}

CumsumPlan cumsum_plan(const Shape& x, int64_t axis) {
  const int a = normalize_axis(axis, int(x.size()), "cumsum");
  CumsumPlan p;
  for (int d = 0; d < int(x.size()); ++d) (d < a ? p.outer : d == a ? p.n : p.inner) *= x[size_t(d)];
  return p;
}

namespace {

void copy(const Tensor& src, Tensor& dst, const CopyPlan& c) {
  cpu::strided_copy(src.raw(), c.src_base, c.src_strides, dst.raw(), c.dst_base, c.dst_strides, c.shape,
                    dtype_size(src.dtype()));
}

void expect_one(const char* op, const std::vector<AType>& in, size_t n) {
  if (in.size() != n) throw_bad_input(cat(op, " takes ", n, " operand(s), got ", in.size()));
}

void register_rev() {
  Primitive p = primitive_of("rev", kStructural, {"dimensions"});
  p.shape = [](const std::vector<AType>& in, const Params& params) {
    expect_one("rev", in, 1);
    rev_plan(in[0].shape, params.get_ints("dimensions"));  // validates
    return std::vector<AType>{in[0]};
  };
  p.cpu = [](const std::vector<Tensor>& in, const Params& params, EvalContext&) {
    Tensor out = Tensor::empty(in[0].shape(), in[0].dtype());
    copy(in[0], out, rev_plan(in[0].shape(), params.get_ints("dimensions")));
    return std::vector<Tensor>{out};
  };
  register_primitive(std::move(p));
}

void register_pad() {
  Primitive p = primitive_of("pad", kStructural, {"padding_config"});
  p.shape = [](const std::vector<AType>& in, const Params& params) {
    expect_one("pad", in, 2);
    if (in[1].rank() != 0 || in[1].dtype != in[0].dtype)
      throw_bad_input(cat("pad: the padding value must be a scalar of the operand's dtype, got ", in[1].str(),
                          " for ", in[0].str()), "convert_element_type or reshape the padding value first");
    return std::vector<AType>{AType{pad_out_shape(in[0].shape, pad_config(params, in[0].rank())), in[0].dtype}};
  };
  p.cpu = [](const std::vector<Tensor>& in, const Params& params, EvalContext&) {
    const PadConfig c = pad_config(params, in[0].rank());
    const Shape out_shape = pad_out_shape(in[0].shape(), c);
    Tensor out = Tensor::empty(out_shape, in[0].dtype());
    // Every position gets the padding value (a broadcast: source stride 0), then the operand.
    copy(in[1], out, CopyPlan{out_shape, Shape(out_shape.size(), 0), row_major_strides(out_shape)});
    copy(in[0], out, pad_plan(in[0].shape(), c));
    return std::vector<Tensor>{out};
  };
  register_primitive(std::move(p));
}

template <class T>
void cumsum_lines(const T* x, T* y, const CumsumPlan& c, bool reverse) {
  using C = std::conditional_t<std::is_same_v<T, int32_t>, uint32_t, cpu::compute_t<T>>;  // i32 wraps
  for (int64_t o = 0; o < c.outer; ++o)
    for (int64_t j = 0; j < c.inner; ++j) {
      C acc = C(0);
      for (int64_t k = 0; k < c.n; ++k) {
        const int64_t i = (o * c.n + (reverse ? c.n - 1 - k : k)) * c.inner + j;
        if constexpr (std::is_same_v<T, int32_t>) {
          acc += uint32_t(x[i]);
          y[i] = int32_t(acc);
        } else {
          y[i] = cpu::store<T>(acc + cpu::load(x[i]));
          acc = cpu::load(y[i]);  // the partial sum as stored: bf16/f16 round at every step
        }
      }
    }
}

void register_cumsum() {
  Primitive p = primitive_of("cumsum", 0, {"axis", "reverse"});
  p.shape = [](const std::vector<AType>& in, const Params& params) {
    expect_one("cumsum", in, 1);
    if (in[0].dtype == DType::pred)
      throw_bad_input("cumsum is not defined on bool", "convert_element_type to i32 first, as jnp.cumsum does");
    cumsum_plan(in[0].shape, params.get_int("axis"));  // validates the axis
    return std::vector<AType>{in[0]};
  };
  p.cpu = [](const std::vector<Tensor>& in, const Params& params, EvalContext&) {
    Tensor out = Tensor::empty(in[0].shape(), in[0].dtype());
    const CumsumPlan c = cumsum_plan(in[0].shape(), params.get_int("axis"));
    cpu::dispatch_numeric(in[0].dtype(), "cumsum", [&](auto tag) {
      using T = decltype(tag);
      cumsum_lines<T>(in[0].data<T>(), out.data<T>(), c, params.get_bool("reverse", false));
    });
    return std::vector<Tensor>{out};
  };
  register_primitive(std::move(p));
}

}  // namespace

void register_pad_rev_cumsum_primitives() {
  register_rev();
  register_pad();
  register_cumsum();
}

}  // namespace tandem
