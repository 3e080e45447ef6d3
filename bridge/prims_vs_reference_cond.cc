// The engine-vs-reference rows of cond (prims_vs_reference_rows.h): lax.switch over three
// branches with every index (in range, negative and too large: the last branch), an integer
// output beside the float ones, and lax.cond's form, a predicate computed from the data
// converted to the index. The float rows also check the vjp against the reference's tape.
#include "bridge/prims_vs_reference_rows.h"
#include "engine/core/error.h"
#include "engine/prims/cond.h"

namespace tandem {
namespace {
using V = std::vector<Value>;
using Rows = std::map<std::string, std::vector<Row>>;

// Branches over (x [3, 4], y [4]) returning (f [3, 4], g [3], count i32 []).
std::vector<Program> branches(DType t) {
  const std::vector<AType> in{AType{{3, 4}, t}, AType{{4}, t}};
  auto yb = [](const Value& y) { return broadcast_in_dim(y, {3, 4}, {1}); };
  return {trace(in, [yb](Builder& b, const V& a) {
            return V{sin(a[0]) * yb(a[1]), reduce_sum(a[0] * a[0], {1}), b.literal(0, DType::i32)};
          }),
          trace(in, [yb](Builder& b, const V& a) {
            return V{a[0] + yb(exp(a[1])), reduce_max(a[0], {1}), b.literal(1, DType::i32)};
          }),
          trace(in, [](Builder& b, const V& a) {
            return V{tanh(a[0]), cos(reduce_sum(a[0], {1})), b.literal(2, DType::i32)};
          })};
}
}  // namespace

void add_cond_rows(Rows& r) {
  for (DType t : {DType::f64, DType::f32, DType::bf16}) {
    const std::string d(dtype_name(t));
    const std::vector<Program> br = branches(t);
    for (int index : {0, 1, 2, -1, 3})
      r["cond"].push_back({cat("cond/switch/index:", index, "/", d), {AType{{3, 4}, t}, AType{{4}, t}},
                           [br, index](Builder& b, const V& a) { return cond(b.literal(index, DType::i32), br, a); }});
    // lax.cond(sum(y) > 0, ...): the index from the data, two branches.
    const std::vector<Program> two(br.begin(), br.begin() + 2);
    r["cond"].push_back({cat("cond/predicate/", d), {AType{{3, 4}, t}, AType{{4}, t}}, [two](Builder& b, const V& a) {
                           Value pred = compare(reduce_sum(a[1], {0}), b.literal(0, a[1].dtype()), "gt");
                           return cond(convert_element_type(pred, DType::i32), two, a);
                         }});
  }
}

}  // namespace tandem
