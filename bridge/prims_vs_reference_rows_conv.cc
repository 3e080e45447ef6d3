// The engine-vs-reference rows of conv_general_dilated (prims_vs_reference_rows.h): both
// layouts JAX code writes (NCHW/OIHW, NHWC/HWIO), strides with SAME and VALID padding, lhs
// and rhs dilation, feature and batch groups, a 1-D case with negative padding, bf16 operands
// into an f32 result (preferred_element_type), and an empty batch. Gradients are compared
// wherever the dtypes allow (f64, f32): the VJP is itself two conv_general_dilated calls.
#include "bridge/prims_vs_reference_rows.h"
#include "engine/core/error.h"
#include "engine/prims/conv.h"

namespace tandem {
namespace {
using V = std::vector<Value>;

ConvSpec spec2d(bool nhwc, std::vector<int64_t> strides, std::vector<int64_t> lo, std::vector<int64_t> hi) {
  ConvSpec s;
  s.window_strides = std::move(strides), s.pad_lo = std::move(lo), s.pad_hi = std::move(hi);
  s.lhs_dilation = s.rhs_dilation = {1, 1};
  s.lhs_spec = nhwc ? std::vector<int64_t>{0, 3, 1, 2} : std::vector<int64_t>{0, 1, 2, 3};
  s.rhs_spec = nhwc ? std::vector<int64_t>{3, 2, 0, 1} : std::vector<int64_t>{0, 1, 2, 3};
  s.out_spec = s.lhs_spec;
  return s;
}
// lhs [N=2, C, 6, 5] and rhs [O, I, 3, 2] in the spec's layout.
AType lhs_type(bool nhwc, int64_t c, DType t, int64_t n = 2) { return nhwc ? AType{{n, 6, 5, c}, t} : AType{{n, c, 6, 5}, t}; }
AType rhs_type(bool nhwc, int64_t o, int64_t i, DType t) { return nhwc ? AType{{3, 2, i, o}, t} : AType{{o, i, 3, 2}, t}; }

Row conv_row(const std::string& name, AType l, AType r, ConvSpec s) {
  Row row{name, {l, r}, [s](Builder&, const V& a) { return V{conv_general_dilated(a[0], a[1], s)}; }};
  row.ulps = 256, row.grad_ulps = 1024;  // sums of up to 36 products of inputs in [-2, 2), near-zero results included
  return row;
}
}  // namespace

void add_conv_rows(const std::function<void(const std::string&, Row)>& add) {
  const std::string prim = "conv_general_dilated";
  for (DType t : {DType::f64, DType::f32})
    for (bool nhwc : {false, true}) {
      const std::string tag = cat(nhwc ? "nhwc" : "nchw", "/", dtype_name(t));
      // SAME at stride 2 on 6×5 with a 3×2 kernel: out 3×3, pads (1,1) and (0,1).
      add(prim, conv_row("conv/same_stride2/" + tag, lhs_type(nhwc, 3, t), rhs_type(nhwc, 4, 3, t),
                         spec2d(nhwc, {2, 2}, {1, 0}, {1, 1})));
      ConvSpec dil = spec2d(nhwc, {1, 1}, {0, 2}, {1, 0});
      dil.lhs_dilation = {2, 1}, dil.rhs_dilation = {1, 2};
      add(prim, conv_row("conv/dilated/" + tag, lhs_type(nhwc, 3, t), rhs_type(nhwc, 2, 3, t), dil));
      ConvSpec fg = spec2d(nhwc, {1, 2}, {0, 0}, {0, 0});
      fg.feature_group_count = 2;
      add(prim, conv_row("conv/feature_groups:2/" + tag, lhs_type(nhwc, 4, t), rhs_type(nhwc, 6, 2, t), fg));
      ConvSpec bg = spec2d(nhwc, {2, 1}, {1, 1}, {0, 0});
      bg.batch_group_count = 2;
      add(prim, conv_row("conv/batch_groups:2/" + tag, lhs_type(nhwc, 3, t), rhs_type(nhwc, 4, 3, t), bg));
    }
  ConvSpec one;  // 1-D NWC / WIO / NWC, negative low padding crops
  one.window_strides = {1}, one.pad_lo = {-1}, one.pad_hi = {2}, one.lhs_dilation = one.rhs_dilation = {1};
  one.lhs_spec = {0, 2, 1}, one.rhs_spec = {2, 1, 0}, one.out_spec = {0, 2, 1};
  add(prim, conv_row("conv/1d_negative_pad/f32", AType{{3, 7, 2}, DType::f32}, AType{{3, 2, 5}, DType::f32}, one));
  ConvSpec mixed = spec2d(false, {1, 1}, {1, 1}, {1, 1});
  mixed.preferred_element_type = DType::f32;
  Row bf = conv_row("conv/bf16_to_f32", lhs_type(false, 3, DType::bf16), rhs_type(false, 2, 3, DType::bf16), mixed);
  bf.grad_ulps = 0;
  add(prim, bf);
  add(prim, conv_row("conv/empty_batch/f32", lhs_type(false, 3, DType::f32, 0), rhs_type(false, 2, 3, DType::f32),
                     spec2d(false, {1, 1}, {0, 0}, {0, 0})));
}

}  // namespace tandem
