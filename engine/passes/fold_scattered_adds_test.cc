// fold_scattered_adds on the cotangent of a value cut into slices: the same numbers as the
// vjp's own program (only signed zeros may differ, and compare equal), no full-size zeros
// left, and an add whose zeros have another reader left alone.
#include "engine/passes/fold_scattered_adds.h"

#include "engine/passes/hoist_test_util.h"
#include "engine/passes/vjp.h"

namespace tandem {
namespace {
using namespace hoist_test;
using V = std::vector<Value>;

int count(const Program& p, const std::string& prim, const Shape& shape) {
  int n = 0;
  for (const Eqn& e : p.eqns) n += e.prim->name == prim && e.out[0]->type.shape == shape;
  return n;
}

TEST(FoldScatteredAdds, SliceCotangentsAddIntoWindows) {
  // w[20] cut into [0,5), [5,12), [12,20), as the LSTM's flat weight vector is.
  Program f = trace({{{20}, DType::f32}}, [](Builder&, const V& v) {
    Value a = slice(v[0], {0}, {5}), b = slice(v[0], {5}, {12}), c = slice(v[0], {12}, {20});
    return V{reduce_sum(a * a, {0}) + reduce_sum(sin(b), {0}) + reduce_sum(c * 3.0, {0})};
  });
  VjpProgram v = vjp(f);
  HoistResult h = fold_scattered_adds(v.backward);
  typecheck(h.program);
  EXPECT_EQ(h.rewrites, 2) << ::testing::PrintToString(h.log);
  EXPECT_EQ(count(v.backward, "add", {20}), 2);
  EXPECT_EQ(count(h.program, "add", {20}), 0);            // only window-sized adds remain
  EXPECT_EQ(count(h.program, "broadcast_in_dim", {20}), 1);  // the first slice's zeros
  VjpProgram folded = v;
  folded.backward = h.program;
  std::vector<Tensor> in = inputs_for(f), ct{Tensor::scalar(1.5, DType::f32)};
  std::vector<double> want = run_vjp(v, in, ct).cotangents[0].to_f64(), got = run_vjp(folded, in, ct).cotangents[0].to_f64();
  ASSERT_EQ(got.size(), 20u);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(got[i], want[i]) << i;  // exact: the same adds, windowed
}

TEST(FoldScatteredAdds, ZerosWithAnotherReaderAreLeftAlone) {
  Program p = trace({{{6}, DType::f32}, {{2}, DType::f32}}, [](Builder& b, const V& v) {
    Value z = broadcast_in_dim(b.literal(0.0, DType::f32), {6}, {});
    Value s = dynamic_update_slice(z, v[1], {b.literal(1, DType::i32)});
    return V{s + v[0], z};
  });
  HoistResult h = fold_scattered_adds(p);
  EXPECT_EQ(h.rewrites, 0);
  EXPECT_EQ(to_string(h.program), to_string(p));
}

TEST(FoldScatteredAdds, EitherOrderAndClampedStarts) {
  // add(X, dus(zeros, g, 5)) with g[3] into [6]: the start clamps to 3 in both forms.
  Program p = trace({{{6}, DType::f32}, {{3}, DType::f32}}, [](Builder& b, const V& v) {
    Value z = broadcast_in_dim(b.literal(0.0, DType::f32), {6}, {});
    return V{v[0] + dynamic_update_slice(z, v[1], {b.literal(5, DType::i32)})};
  });
  HoistResult h = fold_scattered_adds(p);
  EXPECT_EQ(h.rewrites, 1);
  std::vector<Tensor> in = inputs_for(p);
  EXPECT_EQ(run(h.program, in), run(p, in));
}

}  // namespace
}  // namespace tandem
