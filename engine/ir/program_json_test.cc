// program_to_json: every param kind, literals (non-finite too), nested sub-programs and
// var ids that tie uses to definitions, so an outside interpreter can rebuild the Program.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/ir/builder.h"
#include "engine/ir/program_json.h"
#include "engine/prims/checkpoint.h"

namespace tandem {
namespace {

using nlohmann::json;

TEST(ProgramJson, TypesVarsLiteralsAndParams) {
  Builder b;
  Value x = b.input({4, 8}, DType::f32);
  Value w = b.input({8, 3}, DType::f32);
  Value y = dot_general(x, w, DotDims{{1}, {0}, {}, {}}, "HIGHEST", DType::f64);
  Value z = reduce_max(convert_element_type(y, DType::bf16), {1}) * std::numeric_limits<double>::infinity();
  Program p = b.build({z});
  json j = program_to_json(p);
  ASSERT_EQ(j["invars"].size(), 2u);
  EXPECT_EQ(j["invars"][0]["dtype"], "f32");
  EXPECT_EQ(j["invars"][0]["shape"], json({4, 8}));
  const json& dot = j["eqns"][0];
  EXPECT_EQ(dot["primitive"], "dot_general");
  EXPECT_EQ(dot["in"][0]["var"], j["invars"][0]["id"]);
  EXPECT_EQ(dot["in"][1]["var"], j["invars"][1]["id"]);
  EXPECT_EQ(dot["params"]["lhs_contracting_dimensions"], json({1})) << dot.dump();
  EXPECT_EQ(dot["params"]["precision"], "HIGHEST");
  EXPECT_EQ(dot["params"]["preferred_element_type"], json({{"dtype", "f64"}}));
  EXPECT_EQ(dot["out"][0]["dtype"], "f64");
  EXPECT_EQ(j["eqns"][1]["params"]["new_dtype"], json({{"dtype", "bf16"}}));
  EXPECT_EQ(j["eqns"][2]["params"]["axes"], json({1}));
  const json& mul = j["eqns"][3];
  EXPECT_EQ(mul["primitive"], "mul");
  EXPECT_EQ(mul["in"][1], json({{"literal", "inf"}, {"dtype", "bf16"}})) << mul.dump();
  EXPECT_EQ(j["outvars"][0]["var"], mul["out"][0]["id"]);
  // Every param of every eqn is written (none dropped on the way).
  for (size_t i = 0; i < p.eqns.size(); ++i)
    EXPECT_EQ(j["eqns"][i]["params"].size(), p.eqns[i].params.items().size()) << i;
}

TEST(ProgramJson, SubProgramsNest) {
  Builder body_b;
  Value c = body_b.input({3}, DType::f32);
  Value xi = body_b.input({3}, DType::f32);
  Program body = body_b.build({c + sin(xi), c * xi});
  Builder ck_b;
  Value a = ck_b.input({3}, DType::f32);
  Program ck = ck_b.build({checkpoint_name(exp(a), "e")});

  Builder b;
  Value init = b.input({3}, DType::f32);
  Value xs = b.input({5, 3}, DType::f32);
  std::vector<Value> out = scan(body, {}, {init}, {xs}, 5, /*reverse=*/true, /*unroll=*/2);
  Value r = checkpoint(ck, {out[0]}, "save_only_these_names(e)")[0];
  json j = program_to_json(b.build({r, out[1]}));
  const json& s = j["eqns"][0];
  EXPECT_EQ(s["primitive"], "scan");
  EXPECT_EQ(s["params"]["length"], 5);
  EXPECT_EQ(s["params"]["reverse"], true);
  EXPECT_EQ(s["params"]["unroll"], 2);
  EXPECT_EQ(s["params"]["num_carry"], 1);
  EXPECT_EQ(s["params"]["num_consts"], 0);
  const json& sb = s["params"]["body"]["program"];
  EXPECT_EQ(sb["invars"].size(), 2u);
  EXPECT_EQ(sb["eqns"][0]["primitive"], "sin");
  EXPECT_EQ(sb["outvars"].size(), 2u);
  const json& k = j["eqns"][1];
  EXPECT_EQ(k["primitive"], "checkpoint");
  EXPECT_EQ(k["params"]["policy"], "save_only_these_names(e)");
  EXPECT_EQ(k["params"]["prevent_cse"], true);
  const json& kb = k["params"]["body"]["program"];
  EXPECT_EQ(kb["eqns"][1]["primitive"], "checkpoint_name");
  EXPECT_EQ(kb["eqns"][1]["params"]["name"], "e");
}

TEST(ProgramJson, NanLiteralIsAString) {
  Builder b;
  Value x = b.input({2}, DType::f32);
  json j = program_to_json(b.build({x + std::nan("")}));
  EXPECT_EQ(j["eqns"][0]["in"][1]["literal"], "nan");
  EXPECT_EQ(json::parse(j.dump()), j);  // survives a round trip through text
}

}  // namespace
}  // namespace tandem
