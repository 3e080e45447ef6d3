// conv_general_dilated: params, shape rule, builder, the axis helpers of its rules and its
// registration (the CPU impl is conv_cpu.cc, the VJP rule vjp_rules_conv.cc, batching
// batch_rules_conv.cc). Semantics as lax.conv_general_dilated (XLA's ConvGeneralDilated):
// the lhs dilated by lhs_dilation and padded, the kernel dilated by rhs_dilation, windows
// every window_strides; feature groups split the features, batch groups the batch.
#include "engine/prims/conv.h"

#include <algorithm>
#include <numeric>

#include "engine/core/error.h"
#include "engine/prims/primitive_of.h"

namespace tandem {

std::vector<Tensor> conv_general_dilated_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx);

namespace {
constexpr const char* kSpecHint =
    "dimension_numbers are lax.ConvDimensionNumbers: lhs_spec (batch, feature, spatial...), rhs_spec "
    "(out feature, in feature, spatial...), out_spec (batch, feature, spatial...), each a permutation of the axes";

int64_t dilated(int64_t extent, int64_t dilation) { return extent == 0 ? 0 : (extent - 1) * dilation + 1; }

void check_spec(const std::vector<int64_t>& spec, size_t rank, const char* name) {
  std::vector<int64_t> sorted = spec, want(rank);
  std::sort(sorted.begin(), sorted.end());
  std::iota(want.begin(), want.end(), 0);
  if (sorted != want) throw_bad_input(cat("conv_general_dilated: ", name, " is not a permutation of 0..", rank - 1), kSpecHint);
}

void check_counts(const ConvGeometry& g, const ConvSpec& s) {
  const int64_t f = s.feature_group_count, b = s.batch_group_count;
  if (f < 1 || b < 1 || (f > 1 && b > 1))
    throw_bad_input(cat("conv_general_dilated: feature_group_count ", f, " and batch_group_count ", b),
                    "both are >= 1 and at most one of them is above 1, as XLA requires");
  if (g.c != g.i * f)
    throw_bad_input(cat("conv_general_dilated: lhs has ", g.c, " features, rhs ", g.i, " in-features × feature_group_count ", f),
                    "the lhs feature dimension must be rhs's in-feature dimension times feature_group_count");
  if (g.o % (f * b) != 0 || g.n % b != 0)
    throw_bad_input(cat("conv_general_dilated: ", g.o, " out features and batch ", g.n, " for group counts ", f, ", ", b),
                    "out features must divide by the group count, the batch by batch_group_count");
}
}  // namespace

Params conv_params(const ConvSpec& s) {
  std::vector<int64_t> padding;
  for (size_t d = 0; d < s.pad_lo.size(); ++d) padding.insert(padding.end(), {s.pad_lo[d], d < s.pad_hi.size() ? s.pad_hi[d] : 0});
  Params p{{"window_strides", s.window_strides}, {"padding", padding}, {"lhs_dilation", s.lhs_dilation},
           {"rhs_dilation", s.rhs_dilation}, {"lhs_spec", s.lhs_spec}, {"rhs_spec", s.rhs_spec},
           {"out_spec", s.out_spec}, {"feature_group_count", s.feature_group_count},
           {"batch_group_count", s.batch_group_count}, {"precision", s.precision}};
  if (s.preferred_element_type) p.set("preferred_element_type", *s.preferred_element_type);
  return p;
}

ConvSpec conv_spec(const Params& p) {
  ConvSpec s;
  s.window_strides = p.get_ints("window_strides");
  const std::vector<int64_t> padding = p.get_ints("padding");
  if (padding.size() % 2)
    throw_bad_input("conv_general_dilated: padding has an odd number of entries", "padding is (lo, hi) per spatial dimension, flattened");
  for (size_t d = 0; d < padding.size(); d += 2) {
    s.pad_lo.push_back(padding[d]);
    s.pad_hi.push_back(padding[d + 1]);
  }
  s.lhs_dilation = p.get_ints("lhs_dilation");
  s.rhs_dilation = p.get_ints("rhs_dilation");
  s.lhs_spec = p.get_ints("lhs_spec");
  s.rhs_spec = p.get_ints("rhs_spec");
  s.out_spec = p.get_ints("out_spec");
  s.feature_group_count = p.get_int("feature_group_count", 1);
  s.batch_group_count = p.get_int("batch_group_count", 1);
  s.precision = p.get_string("precision", "DEFAULT");
  if (s.precision != "DEFAULT" && s.precision != "HIGH" && s.precision != "HIGHEST")
    throw_bad_input(cat("conv_general_dilated: precision ", s.precision),
                    "tandem's conv takes lax.Precision DEFAULT, HIGH or HIGHEST (all f32 or wider on the CPU), "
                    "not a DotAlgorithm preset");
  s.preferred_element_type = p.get_optional_dtype("preferred_element_type");
  return s;
}

ConvGeometry conv_geometry(const AType& lhs, const AType& rhs, const ConvSpec& s) {
  const size_t r = lhs.shape.size();
  if (r < 2 || rhs.shape.size() != r)
    throw_bad_input(cat("conv_general_dilated: lhs ", lhs.str(), " and rhs ", rhs.str()), "both of one rank >= 2");
  if (lhs.dtype != rhs.dtype || lhs.dtype == DType::pred)
    throw_bad_input(cat("conv_general_dilated: lhs ", lhs.str(), " and rhs ", rhs.str()),
                    "the operands share one numeric dtype (convert one first, as lax.conv_general_dilated requires)");
  check_spec(s.lhs_spec, r, "lhs_spec");
  check_spec(s.rhs_spec, r, "rhs_spec");
  check_spec(s.out_spec, r, "out_spec");
  ConvGeometry g;
  g.nsp = int64_t(r) - 2;
  for (const auto* v : {&s.window_strides, &s.pad_lo, &s.pad_hi, &s.lhs_dilation, &s.rhs_dilation})
    if (int64_t(v->size()) != g.nsp)
      throw_bad_input(cat("conv_general_dilated: ", g.nsp, " spatial dimensions but a stride, padding or dilation list of ", v->size()),
                      "give one window stride, one (lo, hi) padding pair and one dilation of each kind per spatial dimension");
  g.n = lhs.shape[size_t(s.lhs_spec[0])], g.c = lhs.shape[size_t(s.lhs_spec[1])];
  g.o = rhs.shape[size_t(s.rhs_spec[0])], g.i = rhs.shape[size_t(s.rhs_spec[1])];
  g.groups = s.feature_group_count * s.batch_group_count;
  check_counts(g, s);
  g.n_out = g.n / s.batch_group_count;
  Shape out(r);
  out[size_t(s.out_spec[0])] = g.n_out;
  out[size_t(s.out_spec[1])] = g.o;
  for (int64_t d = 0; d < g.nsp; ++d) {
    const size_t k = size_t(d);
    if (s.window_strides[k] < 1 || s.lhs_dilation[k] < 1 || s.rhs_dilation[k] < 1)
      throw_bad_input("conv_general_dilated: window strides and dilations must be >= 1");
    g.lhs_sp.push_back(lhs.shape[size_t(s.lhs_spec[k + 2])]);
    g.rhs_sp.push_back(rhs.shape[size_t(s.rhs_spec[k + 2])]);
    const int64_t in = dilated(g.lhs_sp[k], s.lhs_dilation[k]) + s.pad_lo[k] + s.pad_hi[k];
    const int64_t win = dilated(g.rhs_sp[k], s.rhs_dilation[k]);
    g.out_sp.push_back(in < win ? 0 : (in - win) / s.window_strides[k] + 1);
    out[size_t(s.out_spec[k + 2])] = g.out_sp[k];
  }
  g.out = AType{out, s.preferred_element_type.value_or(lhs.dtype)};
  return g;
}

Value conv_general_dilated(Value lhs, Value rhs, const ConvSpec& s) {
  Builder* b = lhs.builder() ? lhs.builder() : rhs.builder();
  if (!b) throw_bad_input("conv_general_dilated with no traced operands", "start from a Builder input");
  return b->bind1("conv_general_dilated", {lhs, rhs}, conv_params(s));
}

Value reshape_axis_out_of(Value x, int src, int64_t size1) {
  Shape s = x.shape();
  const int64_t extent = s[size_t(src)];
  s[size_t(src)] = extent / size1;
  s.insert(s.begin() + src, size1);
  return reshape(x, s);
}

Value reshape_axis_into(Value x, int src, int dst) {
  std::vector<int64_t> perm;
  for (int d = 0; d < x.rank(); ++d)
    if (d != src) perm.push_back(d);
  perm.insert(perm.begin() + dst, src);
  Value t = transpose(x, perm);
  Shape s = t.shape();
  s[size_t(dst)] *= s[size_t(dst) + 1];
  s.erase(s.begin() + dst + 1);
  return reshape(t, s);
}

Value reverse_axes(Value x, const std::vector<int64_t>& axes) {
  for (int64_t a : axes) {
    const int64_t n = x.shape()[size_t(a)];
    if (n <= 1) continue;
    std::vector<Value> pieces;
    for (int64_t k = n; k-- > 0;) {
      std::vector<int64_t> lo(size_t(x.rank()), 0), hi = x.shape();
      lo[size_t(a)] = k;
      hi[size_t(a)] = k + 1;
      pieces.push_back(slice(x, lo, hi));
    }
    x = concatenate(pieces, a);
  }
  return x;
}

void register_conv_primitive() {
  Primitive p = primitive_of("conv_general_dilated", kContraction,
                             {"window_strides", "padding", "lhs_dilation", "rhs_dilation", "lhs_spec", "rhs_spec",
                              "out_spec", "feature_group_count", "batch_group_count", "precision",
                              "preferred_element_type"});
  p.shape = [](const std::vector<AType>& in, const Params& q) {
    if (in.size() != 2) throw_bad_input(cat("conv_general_dilated takes 2 operands, got ", in.size()));
    return std::vector<AType>{conv_geometry(in[0], in[1], conv_spec(q)).out};
  };
  p.cpu = conv_general_dilated_cpu;
  register_primitive(std::move(p));
}

}  // namespace tandem
