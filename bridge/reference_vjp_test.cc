// reference_vjp (the reference's taped reverse mode over an IR program) against central
// differences of the reference interpreter, and against the engine's vjp, in f64, on
// programs that exercise the interpreter's control flow: scan (both directions, with
// consts and ys), while (the reference's tape only: the engine refuses), nested checkpoints, dynamic and strided slicing, reduce_max, iota.
#include "bridge/reference_vjp.h"

#include <gtest/gtest.h>

#include <cmath>

#include "bridge/reference_bridge.h"
#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/passes/vjp.h"
#include "engine/prims/checkpoint.h"
#include "engine/prims/while_loop.h"
#include "reference/grad.h"

namespace tandem {
namespace {
using V = std::vector<Value>;

ref::Array values(const Shape& s, int seed) {
  ref::Array a{s, DType::f64, std::vector<double>(size_t(num_elements(s)))};
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = std::sin(1.7 * double(i + 1) + 0.9 * seed);
  return a;
}

void check(const Program& p, bool vs_engine = true) {
  std::vector<ref::Array> in, cts;
  for (size_t i = 0; i < p.in_vars.size(); ++i) in.push_back(values(p.in_vars[i]->type.shape, int(i)));
  for (size_t k = 0; k < p.out_vars.size(); ++k) cts.push_back(values(p.out_vars[k].type().shape, 40 + int(k)));
  std::vector<ref::Array> got = reference_vjp(p, in, cts);
  // Central differences of the untaped reference interpreter.
  std::vector<ref::Array> fd = ref::grad([&](const std::vector<ref::Array>& x) {
    double s = 0;
    std::vector<ref::Array> out = reference_eval(p, x);
    for (size_t k = 0; k < out.size(); ++k)
      for (size_t i = 0; i < out[k].data.size(); ++i) s += out[k].data[i] * cts[k].data[i];
    return s;
  }, in);
  // The engine's vjp on the same values.
  std::vector<Tensor> tin, tct;
  for (const ref::Array& a : in) tin.push_back(from_ref(a));
  for (const ref::Array& a : cts) tct.push_back(from_ref(a));
  VjpRun eng = vs_engine ? run_vjp(vjp(p), tin, tct) : VjpRun{};
  ASSERT_EQ(got.size(), in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    std::vector<double> e = vs_engine ? eng.cotangents[k].to_f64() : std::vector<double>{};
    for (size_t i = 0; i < got[k].data.size(); ++i) {
      EXPECT_NEAR(got[k].data[i], fd[k].data[i], 1e-7 * (1 + std::abs(fd[k].data[i]))) << "vs FD, input " << k << " [" << i << "]";
      if (vs_engine) {
        EXPECT_NEAR(got[k].data[i], e[i], 1e-12 * (1 + std::abs(e[i]))) << "vs engine, input " << k << " [" << i << "]";
      }
    }
  }
}

TEST(ReferenceVjp, ScanBothDirections) {
  AType s{{3}, DType::f64};
  Program body = trace({s, s, s}, [](Builder&, auto& v) {  // (w, h, x) -> (h', sin h')
    Value h = tanh(v[1] * v[0] + v[2]);
    return V{h, sin(h) * v[2]};
  });
  for (bool rev : {false, true})
    check(trace({s, s, {{4, 3}, DType::f64}}, [&](Builder&, auto& v) { return scan(body, {v[0]}, {v[1]}, {v[2]}, 4, rev); }));
}

// while: the tape records the steps the data ran (4 here, a counter's), checked against
// central differences; the engine refuses reverse mode as JAX does, naming the way out.
Program while_program() {
  AType s{{3}, DType::f64}, i32{{}, DType::i32};
  Program cond = trace({i32, s, i32}, [](Builder&, auto& v) { return V{compare(v[2], v[0], "lt")}; });
  Program body = trace({s, s, i32}, [](Builder& b, auto& v) {
    return V{tanh(v[1] * v[0]) + sin(v[1]), v[2] + b.literal(1, DType::i32)};
  });
  return trace({s, s}, [&](Builder& b, auto& v) {
    V out = while_loop(cond, body, {b.literal(4, DType::i32)}, {v[0]}, {v[1], b.literal(0, DType::i32)});
    return V{out[0] * v[0]};
  });
}

TEST(ReferenceVjp, WhileTapeMatchesFiniteDifferences) { check(while_program(), /*vs_engine=*/false); }

TEST(ReferenceVjp, EngineRefusesWhileAsJaxDoes) {
  try {
    vjp(while_program());
    FAIL() << "expected the vjp of a while to be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_NE(std::string(e.what()).find("lax.while_loop"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("lax.scan"), std::string::npos) << e.hint();
  }
}

TEST(ReferenceVjp, NestedCheckpoints) {
  AType s{{4}, DType::f64};
  Program inner = trace({s, s}, [](Builder&, auto& v) { return V{checkpoint_name(sin(v[0] * v[1]), "y") * v[0]}; });
  Program outer = trace({s, s}, [&](Builder&, auto& v) { return V{cos(checkpoint(inner, v, "nothing_saveable")[0]) + v[1]}; });
  check(trace({s, s}, [&](Builder&, auto& v) { return checkpoint(outer, v, "dots_saveable"); }));
}

TEST(ReferenceVjp, IndexingAndReductions) {
  check(trace({{{5, 4}, DType::f64}, {{2, 2}, DType::f64}}, [](Builder& b, auto& v) {
    Value i1 = b.literal(1, DType::i32), i9 = b.literal(9, DType::i32);
    Value ramp = convert_element_type(iota(b, DType::i32, {5, 4}, 0), DType::f64);
    Value upd = dynamic_update_slice(v[0] * ramp, exp(v[1]), {i9, i1});
    Value keep = select(compare(v[0], ramp, "lt"), upd, v[0] * v[0]);
    return V{reduce_max(keep, {1}), slice(keep, {0, 1}, {5, 4}, {2, 2}), dynamic_slice(keep, {i1, i1}, {3, 2}),
             reduce_sum(concatenate({v[1], transpose(v[1], {1, 0})}, 0), {0})};
  }));
}

TEST(ReferenceVjp, IntegerInputsAreConstants) {
  Program p = trace({{{6}, DType::f64}, {{}, DType::i32}}, [](Builder&, auto& v) {
    return V{dynamic_slice(v[0], {v[1]}, {3}) * 2.0};
  });
  std::vector<ref::Array> g = reference_vjp(p, {values({6}, 1), ref::scalar(DType::i32, 2)},
                                            {ref::Array{{3}, DType::f64, {1, 1, 1}}});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].data, (std::vector<double>{0, 0, 2, 2, 2, 0}));
}

}  // namespace
}  // namespace tandem
