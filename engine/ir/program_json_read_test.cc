// program_from_json: every Program program_to_json writes reads back to one that writes the
// same JSON, to the byte (sub-programs, collectives, f8 and preset dots, every param kind, 2
// against 2.0), and malformed JSON is a bad-input Error naming the equation and what was
// expected. The suites' own programs: suites/program_json_cases_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>

#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/ir/program_json.h"
#include "engine/ir/program_json_read.h"
#include "engine/ir/remat_policy.h"
#include "engine/passes/vjp.h"
#include "engine/prims/checkpoint.h"
#include "engine/prims/collective_prims.h"

namespace tandem {
namespace {

using nlohmann::json;

// Exact: nlohmann's == calls 2 and 2.0 equal, their text does not.
void expect_round_trip(const Program& p) {
  const json j = program_to_json(p);
  EXPECT_EQ(program_to_json(program_from_json(j)).dump(), j.dump());
  EXPECT_EQ(program_to_json(program_from_json(json::parse(j.dump()))).dump(), j.dump());  // through text
}

TEST(ProgramJsonRead, ElementwiseLiteralsAndStructure) {
  Builder b;
  Value x = b.input({4, 8}, DType::f32);
  Value i = iota(b, DType::i32, {4, 8}, 1);
  Value y = select(compare(convert_element_type(i, DType::f32), x, "lt"), x * std::nan(""), -x + 2.0);
  Value z = reduce_max(integer_pow(y, 3), {1}) * std::numeric_limits<double>::infinity();
  Value s = concatenate({slice(x, {0, 0}, {4, 4}), transpose(reshape(x, {8, 4}), {1, 0})}, 1);
  expect_round_trip(b.build({z, s, x}));
}

TEST(ProgramJsonRead, DotPresetsPreferredTypeAndF8) {
  Builder b;
  Value x = b.input({2, 4, 8}, DType::f32);
  Value w = b.input({2, 8, 3}, DType::f32);
  DotDims dims{{2}, {1}, {0}, {0}};
  Value p = dot_general(x, w, dims, "BF16_BF16_F32_X3", DType::f64);
  Value f8 = dot_general(x, w, dims, "ANY_F8_ANY_F8_F32", std::nullopt, F8Operands{F8Format::e5m2, F8Format::e4m3fn});
  expect_round_trip(b.build({p, f8, dot_general(x, w, dims, "HIGHEST")}));
}

TEST(ProgramJsonRead, ScanCheckpointAndTheirVjp) {
  Builder ck_b;
  Value a = ck_b.input({3}, DType::f32);
  Program ck = ck_b.build({sin(checkpoint_name(exp(a), "e"))});
  Builder body_b;
  Value c = body_b.input({3}, DType::f32);
  Value xi = body_b.input({3}, DType::f32);
  Program body = body_b.build({checkpoint(ck, {c * xi}, "save_only_these_names(e)")[0], c + xi});
  Builder b;
  Value init = b.input({3}, DType::f32);
  Value xs = b.input({5, 3}, DType::f32);
  std::vector<Value> out = scan(body, {}, {init}, {xs}, 5, /*reverse=*/true, /*unroll=*/2);
  Program p = b.build({reduce_sum(out[1], {0, 1}) + reduce_sum(out[0], {0})});
  expect_round_trip(p);
  VjpProgram v = vjp(p, {}, save_only_these_names({"e"}));
  expect_round_trip(v.forward);
  expect_round_trip(v.backward);
}

TEST(ProgramJsonRead, CollectivesKeepTheirAxisNames) {
  Builder b;
  Value x = b.input({4, 6}, DType::f32);
  Value g = all_gather(psum(x, "i"), "j", 2, 1, /*tiled=*/true);
  Value t = all_to_all(pmax(x, "i"), "i", 4, 0, 1);
  Value r = ppermute(psum_scatter(x, "i", 2, 0, true), "i", {{0, 1}, {1, 0}});
  expect_round_trip(b.build({g, t, r, axis_index(b, "j")}));
}

// Each param reads back as the Variant alternative it was: 2 is int64, 2.0 a double, a NaN
// param is not the string "nan", an empty list is still an int list.
TEST(ProgramJsonRead, ParamAlternativesStayApart) {
  // neg takes none of these: for this test it takes them all (restored at the end).
  Primitive& neg_prim = mutable_primitive("neg");
  const std::vector<std::string> takes = neg_prim.params;
  neg_prim.params = {"int", "double", "big", "nan", "minus_inf", "string_nan", "flag", "none", "dtype"};
  Builder b;
  Value x = b.input({2}, DType::f32);
  Program p = b.build({neg(x)});
  Eqn& e = p.eqns[0];
  e.params = {{"int", int64_t{2}}, {"double", 2.0}, {"big", 1e20}, {"nan", std::nan("")},
              {"minus_inf", -std::numeric_limits<double>::infinity()}, {"string_nan", std::string("nan")},
              {"flag", false}, {"none", std::vector<int64_t>{}}, {"dtype", DType::bf16}};
  const json j = program_to_json(p);
  EXPECT_EQ(j["eqns"][0]["params"]["nan"], json({{"float", "nan"}}));
  EXPECT_EQ(j["eqns"][0]["params"]["string_nan"], "nan");
  Program back = program_from_json(json::parse(j.dump()));
  for (const auto& [k, v] : p.eqns[0].params.items())
    EXPECT_EQ(back.eqns[0].params.items().at(k).index(), v.index()) << k;
  EXPECT_EQ(program_to_json(back).dump(), j.dump());
  neg_prim.params = takes;
}

TEST(ProgramJsonRead, NewVariablesStayAboveTheIdsRead) {
  json j = {{"schema_version", 1}, {"invars", {{{"id", 1000000000}, {"dtype", "f32"}, {"shape", {2}}}}},
            {"eqns", json::array()}, {"outvars", {{{"var", 1000000000}}}}};
  Program p = program_from_json(j);
  EXPECT_EQ(p.in_vars[0]->id, 1000000000);
  EXPECT_GT(new_var({{2}, DType::f32})->id, 1000000000);
}

TEST(ProgramJsonRead, ReadsAFile) {
  Builder b;
  Value x = b.input({3}, DType::f64);
  const json j = program_to_json(b.build({exp(x)}));
  const std::string path = ::testing::TempDir() + "program_json_read_test.json";
  std::ofstream(path) << j.dump();
  EXPECT_EQ(program_to_json(read_program_json(path)), j);
  std::ofstream(path) << "{\"invars\": [";
  try {
    read_program_json(path);
    ADD_FAILURE() << "truncated JSON was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find(path + ": not valid JSON"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(read_program_json(path), Error);
}

}  // namespace
}  // namespace tandem
