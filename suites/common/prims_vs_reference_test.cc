// Every primitive, engine against the independent reference, over dtypes and edge shapes
// (scalars, zero-size dims, negative axes): one table row per program, run on every backend
// (cuda skips with the reason when no GPU is visible or CUDA is not built).
#include <gtest/gtest.h>

#include <functional>

#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "suites/common/error_spec.h"
#include "suites/common/harness.h"
#include "suites/common/program_case.h"
#include "suites/common/reference_bridge.h"

namespace tandem {
namespace {

struct Row {
  std::string name;
  std::vector<AType> inputs;
  std::function<std::vector<Value>(Builder&, const std::vector<Value>&)> fn;
  double lo = -2, hi = 2;  // input range (log and sqrt want positives)
};

void run_row(const Row& row, Device device) {
  Program p = trace(row.inputs, row.fn);
  std::vector<Tensor> in;
  std::vector<ref::Array> ref_in;
  for (size_t i = 0; i < row.inputs.size(); ++i) {
    in.push_back(seeded_uniform(row.inputs[i].shape, row.inputs[i].dtype,
                                row.name + std::to_string(i), row.lo, row.hi));
    ref_in.push_back(to_ref(in.back()));
  }
  std::vector<Tensor> dev_in;
  for (const Tensor& t : in) dev_in.push_back(t.to(device));
  auto got = Executor(device).run(p, dev_in);
  auto want = reference_eval(p, ref_in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].shape(), want[i].shape) << row.name;
    EXPECT_EQ(got[i].dtype(), want[i].dtype) << row.name;
    // f32 transcendental libm results are within a few ulps; narrower types round once more.
    ErrorSpec spec = elementwise_spec(got[i].dtype(), 4);
    CompareReport r = compare(want[i].data, got[i].to_f64(), spec);
    EXPECT_TRUE(r.pass) << row.name << " output " << i << ": " << r.text();
  }
}

const DType kFloats[] = {DType::f64, DType::f32, DType::bf16, DType::f16};

std::vector<Row> rows() {
  std::vector<Row> r;
  using V = std::vector<Value>;
  for (DType t : kFloats) {
    std::string d(dtype_name(t));
    for (const char* op : {"neg", "exp", "sin", "cos", "tanh", "logistic"})
      r.push_back({cat(op, "/", d), {AType{{3, 5}, t}},
                   [op](Builder& b, const V& a) { return V{b.bind1(op, {a[0]})}; }});
    for (const char* op : {"log", "sqrt"})
      r.push_back({cat(op, "/", d), {AType{{7}, t}},
                   [op](Builder& b, const V& a) { return V{b.bind1(op, {a[0]})}; }, 0.1, 4});
    for (const char* op : {"add", "sub", "mul", "div", "max", "min"})
      r.push_back({cat(op, "/", d), {AType{{2, 3}, t}, AType{{2, 3}, t}},
                   [op](Builder& b, const V& a) { return V{b.bind1(op, {a[0], a[1]})}; }});
    r.push_back({"integer_pow/" + d, {AType{{6}, t}}, [](Builder&, const V& a) {
                   return V{integer_pow(a[0], 3), integer_pow(a[0], -2), integer_pow(a[0], 0)}; }, 0.5, 2});
    r.push_back({"scalar_literal/" + d, {AType{{4}, t}}, [](Builder&, const V& a) {
                   return V{a[0] * 3.0 + 1.0}; }});
    r.push_back({"compare_select/" + d, {AType{{5}, t}, AType{{5}, t}}, [](Builder&, const V& a) {
                   return V{select(compare(a[0], a[1], "lt"), a[0], a[1]), compare(a[0], a[1], "ge")}; }});
    r.push_back({"reduce/" + d, {AType{{3, 4, 5}, t}}, [](Builder&, const V& a) {
                   return V{reduce_sum(a[0], {0, 2}), reduce_max(a[0], {-1}), reduce_sum(a[0], {}),
                            reduce_sum(a[0], {0, 1, 2})}; }});
    r.push_back({"reduce_zero_size/" + d, {AType{{0, 3}, t}}, [](Builder&, const V& a) {
                   return V{reduce_sum(a[0], {0}), reduce_max(a[0], {0})}; }});
    r.push_back({"dot/" + d, {AType{{2, 3, 4}, t}, AType{{2, 4, 5}, t}}, [](Builder&, const V& a) {
                   return V{dot_general(a[0], a[1], {{2}, {1}, {0}, {0}})}; }});
    for (DType to : {DType::f64, DType::f32, DType::bf16, DType::f16, DType::i32, DType::pred})
      r.push_back({cat("convert/", d, "->", dtype_name(to)), {AType{{9}, t}},
                   [to](Builder&, const V& a) { return V{convert_element_type(a[0], to)}; }, -100, 100});
  }
  for (DType t : {DType::f32, DType::i32, DType::bf16}) {
    std::string d(dtype_name(t));
    r.push_back({"broadcast/" + d, {AType{{3, 1}, t}}, [](Builder&, const V& a) {
                   return V{broadcast_in_dim(a[0], {2, 3, 4}, {1, 2})}; }});
    r.push_back({"broadcast_scalar/" + d, {AType{{}, t}}, [](Builder&, const V& a) {
                   return V{broadcast_in_dim(a[0], {2, 2}, {})}; }});
    r.push_back({"reshape_transpose/" + d, {AType{{2, 3, 4}, t}}, [](Builder&, const V& a) {
                   return V{transpose(a[0], {2, 0, 1}), reshape(a[0], {4, 6}), reshape(a[0], {24})}; }});
    r.push_back({"slice/" + d, {AType{{7, 5}, t}}, [](Builder&, const V& a) {
                   return V{slice(a[0], {1, 0}, {6, 5}, {2, 3}), slice(a[0], {2, 2}, {2, 4})}; }});
    r.push_back({"concatenate/" + d, {AType{{2, 3}, t}, AType{{2, 1}, t}, AType{{2, 0}, t}},
                 [](Builder&, const V& a) { return V{concatenate({a[0], a[1], a[2]}, -1)}; }});
    r.push_back({"iota/" + d, {}, [t](Builder& b, const V&) {
                   return V{iota(b, t == DType::bf16 ? DType::f32 : t, {3, 4}, 1)}; }});
    r.push_back({"int_ops/" + d, {AType{{6}, t}, AType{{6}, t}}, [](Builder&, const V& a) {
                   return V{a[0] + a[1], a[0] * a[1], max(a[0], a[1]), -a[0]}; }, -50, 50});
  }
  // dynamic_slice / dynamic_update_slice with in-range and clamped starts.
  for (int start : {1, 7, -3}) {
    r.push_back({cat("dynamic_slice/start:", start), {AType{{6, 4}, DType::f32}},
                 [start](Builder& b, const V& a) {
                   Value s0 = b.literal(start, DType::i32), s1 = b.literal(1, DType::i32);
                   return V{dynamic_slice(a[0], {s0, s1}, {3, 2})}; }});
    r.push_back({cat("dynamic_update_slice/start:", start), {AType{{6, 4}, DType::f32}, AType{{2, 3}, DType::f32}},
                 [start](Builder& b, const V& a) {
                   Value s0 = b.literal(start, DType::i32), s1 = b.literal(0, DType::i32);
                   return V{dynamic_update_slice(a[0], a[1], {s0, s1})}; }});
  }
  // scan: forward and reverse, with consts, several carries and ys.
  for (bool reverse : {false, true}) {
    Program body = trace({AType{{3}, DType::f32}, AType{{3}, DType::f32}, AType{{}, DType::f32},
                          AType{{3}, DType::f32}},
                         [](Builder&, const V& a) {
                           Value h = tanh(a[0] * a[1] + a[3]);
                           Value n = a[2] + reduce_sum(h, {0});
                           return V{h, n, sin(h), n};
                         });
    r.push_back({cat("scan/reverse:", reverse), {AType{{3}, DType::f32}, AType{{3}, DType::f32},
                                                 AType{{}, DType::f32}, AType{{5, 3}, DType::f32}},
                 [body, reverse](Builder&, const V& a) {
                   return scan(body, {a[0]}, {a[1], a[2]}, {a[3]}, 5, reverse); }});
  }
  return r;
}

class PrimsVsReference : public ::testing::TestWithParam<Device> {};
}  // namespace

// Readable parameter in test names ("cuda:0", not the bytes of a Device).
void PrintTo(const Device& d, std::ostream* os) { *os << d.str(); }

namespace {

TEST_P(PrimsVsReference, EveryRow) {
  std::string why = device_unavailable_reason(GetParam());
  if (!why.empty()) GTEST_SKIP() << why;
  auto all = rows();
  EXPECT_GT(all.size(), 100u);
  for (const Row& row : all) {
    SCOPED_TRACE(row.name);
    run_row(row, GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PrimsVsReference,
                         ::testing::Values(Device::cpu(), Device::cuda(0)),
                         [](const auto& info) {
                           return std::string(info.param.kind == DeviceKind::cpu ? "cpu" : "cuda");
                         });

}  // namespace
}  // namespace tandem
