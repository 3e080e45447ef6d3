// The engine-vs-reference rows of reduce_window_max and reduce_window_sum (prims_vs_reference_rows.h): max and average
// pooling as stax writes them (NHWC windows, SAME padding), overlapping strided windows, base and window dilation,
// negative padding, windows of padding only, a zero-size operand and a rank-1 operand. The float rows also check the
// vjp against the reference's tape (window dilation: the max's included, which JAX's own rule refuses).
#include "bridge/prims_vs_reference_rows.h"
#include "engine/core/error.h"
#include "engine/ir/builder_window.h"

namespace tandem {
namespace {
using V = std::vector<Value>;
using Rows = std::map<std::string, std::vector<Row>>;

struct Case {
  const char* name;
  Shape shape;
  WindowDims w;
};

std::vector<Case> cases() {
  return {
      {"pool_same", {2, 5, 5, 3}, window_dims({1, 2, 2, 1}, {1, 2, 2, 1}, {{0, 0}, {0, 1}, {0, 1}, {0, 0}})},
      {"overlapping", {4, 6}, window_dims({3, 2}, {1, 2}, {{1, 1}, {1, 0}})},
      {"base_dilation", {3, 4}, window_dims({2, 3}, {1, 1}, {{1, 0}, {0, 2}}, {2, 2})},
      {"window_dilation", {5, 6}, window_dims({2, 2}, {2, 1}, {{0, 0}, {1, 1}}, {1, 1}, {2, 3})},
      {"negative_padding", {6, 4}, window_dims({2, 2}, {2, 1}, {{-1, 0}, {1, -1}})},
      {"padding_only_windows", {2, 3}, window_dims({1, 2}, {1, 1}, {{2, 0}, {3, 0}})},
      {"zero_size", {0, 4}, window_dims({1, 2})},
      {"rank1", {7}, window_dims({3}, {2}, {{1, 1}})},
  };
}
}  // namespace

void add_window_rows(Rows& r) {
  for (DType t : {DType::f64, DType::f32, DType::bf16, DType::i32})
    for (const Case& c : cases()) {
      const std::string d(dtype_name(t));
      const WindowDims w = c.w;
      r["reduce_window_max"].push_back(
          {cat("reduce_window_max/", c.name, "/", d), {AType{c.shape, t}}, [w](Builder&, const V& a) {
             return V{reduce_window_max(a[0], w)};
           }});
      Row sum{cat("reduce_window_sum/", c.name, "/", d), {AType{c.shape, t}}, [w](Builder&, const V& a) {
                return V{reduce_window_sum(a[0], w)};
              }};
      sum.ulps = 8;  // up to 6 terms, each sum rounded once (f32 accumulation for bf16)
      r["reduce_window_sum"].push_back(sum);
    }
}

}  // namespace tandem
