// Builder, printer and typecheck: programs read like JAX, print like jaxprs, and bad shapes
// fail where they are written with a clear message.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/ir/printer.h"
#include "engine/ir/typecheck.h"

namespace tandem {
namespace {

TEST(Builder, ReadsLikeJax) {
  Builder b;
  Value x = b.input({4, 8}, DType::f32);
  Value w = b.input({8, 16}, DType::f32);
  Value bias = b.input({4, 16}, DType::f32);
  Value h = tanh(dot(x, w) + bias);
  Program p = b.build({h});
  EXPECT_EQ(p.eqns.size(), 3u);
  EXPECT_EQ(p.out_types()[0], (AType{{4, 16}, DType::f32}));
  typecheck(p);
  std::string text = to_string(p);
  EXPECT_NE(text.find("{ lambda ; a:f32[4,8] b:f32[8,16] c:f32[4,16]. let"), std::string::npos) << text;
  EXPECT_NE(text.find("d:f32[4,16] = dot_general["), std::string::npos) << text;
  EXPECT_NE(text.find("f:f32[4,16] = tanh e"), std::string::npos) << text;
  EXPECT_NE(text.find("in (f) }"), std::string::npos) << text;
}

TEST(Builder, LiteralsPrintWithDtype) {
  Builder b;
  Value x = b.input({3}, DType::f32);
  Program p = b.build({x * 2.0});
  EXPECT_NE(to_string(p).find("mul a 2:f32"), std::string::npos) << to_string(p);
}

TEST(Builder, ShapeErrorsAreImmediateAndClear) {
  Builder b;
  Value x = b.input({4, 8}, DType::f32);
  Value y = b.input({4, 9}, DType::f32);
  try {
    add(x, y);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("f32[4,8] vs f32[4,9]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("hint:"), std::string::npos);
  }
  EXPECT_THROW(dot(x, y), Error);                          // 8 vs 4 contracting
  EXPECT_THROW(transpose(x, {0, 0}), Error);               // not a permutation
  EXPECT_THROW(reduce_sum(x, {2}), Error);                 // axis out of range
  EXPECT_THROW(reshape(x, {5, 7}), Error);                 // element count
  EXPECT_THROW(slice(x, {0, 0}, {5, 8}), Error);           // limit beyond size
  EXPECT_THROW(broadcast_in_dim(x, {4, 9}, {0, 1}), Error);
  EXPECT_THROW(add(x, convert_element_type(x, DType::bf16)), Error);
  EXPECT_THROW(primitive("no_such_prim"), Error);
}

TEST(Builder, NegativeAxesNormalise) {
  Builder b;
  Value x = b.input({2, 3, 4}, DType::f32);
  EXPECT_EQ(reduce_sum(x, {-1}).shape(), (Shape{2, 3}));
  EXPECT_EQ(concatenate({x, x}, -2).shape(), (Shape{2, 6, 4}));
}

TEST(Typecheck, CatchesUseBeforeDefinitionAndWrongTypes) {
  Builder b;
  Value x = b.input({2}, DType::f32);
  Value y = sin(x);
  Program p = b.build({y});
  typecheck(p);
  Program swapped = p;
  swapped.in_vars.clear();  // x no longer defined
  EXPECT_THROW(typecheck(swapped), Error);
  Program retyped = p;
  retyped.eqns[0].out[0] = new_var(AType{{3}, DType::f32});
  retyped.out_vars[0] = Atom(retyped.eqns[0].out[0]);
  EXPECT_THROW(typecheck(retyped), Error);
}

TEST(Typecheck, ChecksScanBodies) {
  Program body = trace({AType{{}, DType::f32}, AType{{}, DType::f32}},
                       [](Builder&, const std::vector<Value>& a) {
                         Value c = a[0] + a[1];
                         return std::vector<Value>{c, c};
                       });
  Builder b;
  Value init = b.input({}, DType::f32);
  Value xs = b.input({5}, DType::f32);
  auto outs = scan(body, {}, {init}, {xs}, 5);
  Program p = b.build(outs);
  typecheck(p);
  EXPECT_NE(to_string(p).find("body={ lambda"), std::string::npos) << to_string(p);
  Builder b2;
  Value i2 = b2.input({}, DType::f32);
  Value x2 = b2.input({4}, DType::f32);
  EXPECT_THROW(scan(body, {}, {i2}, {x2}, 5), Error);  // leading dim 4 != length 5
}

}  // namespace
}  // namespace tandem
