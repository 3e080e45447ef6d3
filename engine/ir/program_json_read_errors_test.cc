// program_from_json on malformed JSON: each mistake an exporter can make is a bad-input
// Error whose message names where (the equation's index, primitive and source, the path
// through sub-programs) and what was expected there; none crashes.
#include <gtest/gtest.h>

#include <functional>

#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/ir/program_json.h"
#include "engine/ir/program_json_read.h"

namespace tandem {
namespace {

using nlohmann::json;

// sin, then reduce_sum (with a source, as an exporter from JAX writes it), then mul by 2.
json valid() {
  return json::parse(R"({"schema_version": 1,
    "invars": [{"id": 1, "dtype": "f32", "shape": [2, 3]}],
    "eqns": [
      {"primitive": "sin", "in": [{"var": 1}], "out": [{"id": 2, "dtype": "f32", "shape": [2, 3]}], "params": {}},
      {"primitive": "reduce_sum", "in": [{"var": 2}], "out": [{"id": 3, "dtype": "f32", "shape": [2]}],
       "params": {"axes": [1]}, "source": "model.py:42"},
      {"primitive": "mul", "in": [{"var": 3}, {"literal": 2.0, "dtype": "f32"}],
       "out": [{"id": 4, "dtype": "f32", "shape": [2]}]}],
    "outvars": [{"var": 4}, {"literal": "nan", "dtype": "f32"}]})");
}

struct Malformed {
  const char* what;
  std::function<void(json&)> edit;
  std::vector<std::string> words;  // each must appear in the message
};

const std::vector<Malformed>& malformed() {
  static const std::vector<Malformed> cases = {
      {"use before definition", [](json& j) { j["eqns"][0]["in"][0]["var"] = 7; },
       {"eqn 0 (sin) input 0", "variable 7 is used before it is defined"}},
      {"element count that wraps int64 (2^96)",
       [](json& j) { j["invars"][0]["shape"] = {int64_t(1) << 32, int64_t(1) << 32, int64_t(1) << 32}; },
       {"invar 0", "holds more than 2^40 elements"}},
      {"element count past the limit", [](json& j) { j["eqns"][0]["out"][0]["shape"] = {40000, 40000, 40000}; },
       {"eqn 0 (sin) output 0", "shape [40000,40000,40000] holds more than 2^40 elements"}},
      {"empty value whose strides would wrap",
       [](json& j) { j["invars"][0]["shape"] = {0, int64_t(1) << 62, int64_t(1) << 62}; },
       {"invar 0", "holds more than 2^40 elements"}},
      {"own output as input", [](json& j) { j["eqns"][2]["in"][0]["var"] = 4; },
       {"eqn 2 (mul) input 0", "variable 4"}},
      {"defined twice", [](json& j) { j["eqns"][0]["out"][0]["id"] = 1; },
       {"eqn 0 (sin) output 0", "variable 1 is defined twice"}},
      {"literal of an unknown dtype", [](json& j) { j["eqns"][2]["in"][1]["dtype"] = "f33"; },
       {"eqn 2 (mul) input 1", "unknown dtype string \"f33\"", "f64, f32, bf16, f16, i32, bool"}},
      {"i32 literal not whole", [](json& j) { j["eqns"][2]["in"][1] = {{"literal", 2.5}, {"dtype", "i32"}}; },
       {"eqn 2 (mul) input 1", "whole number"}},
      {"literal that is no number", [](json& j) { j["eqns"][2]["in"][1]["literal"] = "two"; },
       {"eqn 2 (mul) input 1", "\"nan\", \"inf\", \"-inf\""}},
      {"unknown primitive", [](json& j) { j["eqns"][1]["primitive"] = "cumprod"; },
       {"eqn 1 (source model.py:42)", "unknown primitive 'cumprod'", "tandem has: ", "reduce_sum", "dot_general"}},
      {"param of a type no param has", [](json& j) { j["eqns"][1]["params"]["axes"] = {1.5}; },
       {"eqn 1 (reduce_sum, source model.py:42) param 'axes'", "integers only", "element 0 is number 1.5"}},
      {"null param", [](json& j) { j["eqns"][1]["params"]["axes"] = nullptr; },
       {"param 'axes'", "a list of integers", "got null"}},
      {"param of the wrong type for its primitive", [](json& j) { j["eqns"][1]["params"]["axes"] = "1"; },
       {"eqn 1 (reduce_sum, source model.py:42)", "parameter 'axes' is not a list of integers"}},
      {"missing param", [](json& j) { j["eqns"][1]["params"].erase("axes"); },
       {"eqn 1 (reduce_sum, source model.py:42)", "missing parameter 'axes'"}},
      {"missing required field", [](json& j) { j["eqns"][0].erase("out"); },
       {"eqn 0", "missing required field 'out' of an equation"}},
      {"misspelt field", [](json& j) { j["eqns"][0]["parms"] = json::object(); },
       {"eqn 0", "unknown field 'parms'", "primitive, in, out"}},
      {"negative dimension", [](json& j) { j["invars"][0]["shape"] = {2, -3}; },
       {"invar 0", "non-negative integers", "dimension 1 is number -3"}},
      {"shape not a list", [](json& j) { j["invars"][0]["shape"] = "2x3"; },
       {"invar 0", "a shape is a list of non-negative integers", "got string"}},
      {"unknown dtype", [](json& j) { j["eqns"][0]["out"][0]["dtype"] = "float32"; },
       {"eqn 0 (sin) output 0", "unknown dtype string \"float32\""}},
      {"outvar never defined", [](json& j) { j["outvars"][0]["var"] = 99; },
       {"outvar 0", "variable 99 is used before it is defined"}},
      {"does not typecheck", [](json& j) { j["eqns"][1]["out"][0]["shape"] = {3}; },
       {"typecheck: eqn 1 (reduce_sum, source model.py:42) output 0 is f32[3], rule says f32[2]"}},
      {"too many outputs", [](json& j) { j["eqns"][0]["out"].push_back({{"id", 9}, {"dtype", "f32"}, {"shape", {2, 3}}}); },
       {"eqn 0 (sin)", "has 2 outputs, rule says 1"}},
      {"source not a string", [](json& j) { j["eqns"][1]["source"] = 42; },
       {"eqn 1", "field 'source' is a string"}},
      {"newer schema", [](json& j) { j["schema_version"] = 2; },
       {"schema_version number 2 is not the one this tandem reads (1)"}},
      {"no schema version", [](json& j) { j.erase("schema_version"); },
       {"program", "missing required field 'schema_version'"}},
      {"not an object", [](json& j) { j = json::array(); }, {"expected a program (a JSON object)"}},
      {"eqns not a list", [](json& j) { j["eqns"] = json::object(); }, {"field 'eqns' is a list"}},
  };
  return cases;
}

// The error program_from_json raises on j; reading without one fails the test (and gives an
// empty internal error, which every expectation on its message then fails too).
Error read_error(const json& j) {
  try {
    program_from_json(j);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "read without an error";
  return Error(ErrorKind::internal, "");
}

TEST(ProgramJsonRead, TheValidBaseReads) {
  Program p = program_from_json(valid());
  EXPECT_EQ(p.eqns.size(), 3u);
  EXPECT_TRUE(std::isnan(p.out_vars[1].literal->value));
}

TEST(ProgramJsonRead, MalformedIsBadInputSayingWhereAndWhat) {
  for (const Malformed& m : malformed()) {
    json j = valid();
    m.edit(j);
    Error e = read_error(j);
    EXPECT_EQ(e.kind(), ErrorKind::bad_input) << m.what;
    EXPECT_FALSE(e.hint().empty()) << m.what;
    for (const std::string& w : m.words)
      EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << m.what << ": no '" << w << "' in\n" << e.what();
  }
}

// A primitive tandem lacks whose rewrite is known: the hint names the rewrite; otherwise it
// says how a primitive is added.
TEST(ProgramJsonRead, UnknownPrimitiveHintNamesARewrite) {
  for (const auto& [prim, hint] : std::vector<std::pair<std::string, std::string>>{
           {"cumprod", "write instead: jax.lax.associative_scan(jnp.multiply"},
           {"ceil", "write instead: -jnp.floor(-x)"},
           {"frobnicate", "How to add a primitive"}}) {
    json j = valid();
    j["eqns"][0]["primitive"] = prim;
    Error e = read_error(j);
    EXPECT_NE(e.hint().find(hint), std::string::npos) << prim << ": hint " << e.hint();
  }
}

// An error inside a sub-program names the path to it: the outer equation and param first.
TEST(ProgramJsonRead, ErrorsInSubProgramsNameThePath) {
  Builder body_b;
  Value c = body_b.input({3}, DType::f32);
  Value xi = body_b.input({3}, DType::f32);
  Program body = body_b.build({c + xi, sin(xi)});
  Builder b;
  Value init = b.input({3}, DType::f32);
  Value xs = b.input({5, 3}, DType::f32);
  json j = program_to_json(b.build(scan(body, {}, {init}, {xs}, 5)));
  json& inner = j["eqns"][0]["params"]["body"]["program"];
  inner["eqns"][1]["source"] = "model.py:7";
  inner["eqns"][1]["in"][0]["var"] = j["invars"][0]["id"];  // an outer variable: out of scope
  Error e = read_error(j);
  EXPECT_NE(std::string(e.what()).find("eqn 0 (scan) param 'body', eqn 1 (sin, source model.py:7) input 0"),
            std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("belongs to an enclosing program"), std::string::npos) << e.what();
  inner["eqns"][1]["in"][0]["var"] = inner["invars"][1]["id"];
  inner["eqns"][1]["out"][0]["id"] = j["invars"][1]["id"];  // shadows an outer variable
  Error e2 = read_error(j);
  EXPECT_NE(std::string(e2.what()).find("eqn 1 (sin, source model.py:7) output 0: variable "), std::string::npos)
      << e2.what();
  EXPECT_NE(std::string(e2.what()).find("is also defined in an enclosing program"), std::string::npos) << e2.what();
  inner["eqns"][1]["out"][0]["id"] = inner["outvars"][1]["var"] = 123456789;
  j["eqns"][0]["out"][0]["id"] = 123456789;  // the scan's output reuses a body id
  Error e3 = read_error(j);
  EXPECT_NE(std::string(e3.what()).find("eqn 0 (scan) output 0: variable 123456789 is also defined in a sub-program"),
            std::string::npos) << e3.what();
  inner.erase("outvars");
  EXPECT_THROW(program_from_json(j), Error);
}

// A value nested 100,000 deep in a field, and sub-programs nested past the limit: bad input
// with a short message, not a stack overflow (the reader and its messages never recurse into
// such a value).
TEST(ProgramJsonRead, DeepNestingIsBadInputNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const std::string field : {"params", "source", "in", "out"}) {
    json j = valid();
    json& slot = field == "params" ? j["eqns"][1]["params"]["axes"] : j["eqns"][1][field];
    slot = json::parse(deep);  // moved in: no recursive copy
    Error e = read_error(j);
    EXPECT_EQ(e.kind(), ErrorKind::bad_input) << field;
    EXPECT_NE(e.message().find("nested more than 512 levels"), std::string::npos) << field << ": " << e.message();
    EXPECT_LT(e.message().size(), 400u) << field;
  }
  auto nested = [](int n) {  // checkpoint(checkpoint(...(sin)...)), n bodies deep
    json p = json::parse(R"({"invars": [{"id": 1, "dtype": "f32", "shape": [3]}],
      "eqns": [{"primitive": "sin", "in": [{"var": 1}], "out": [{"id": 2, "dtype": "f32", "shape": [3]}]}],
      "outvars": [{"var": 2}]})");
    for (int level = 1; level <= n; ++level) {
      json outer = p;
      outer["invars"][0]["id"] = 2 * level + 1;
      outer["outvars"][0]["var"] = 2 * level + 2;
      outer["eqns"] = json::array({{{"primitive", "checkpoint"}, {"in", {{{"var", 2 * level + 1}}}},
                                    {"out", {{{"id", 2 * level + 2}, {"dtype", "f32"}, {"shape", {3}}}}},
                                    {"params", {{"body", {{"program", p}}}, {"policy", "nothing_saveable"}, {"prevent_cse", true}}}}});
      p = std::move(outer);
    }
    p["schema_version"] = 1;
    return p;
  };
  EXPECT_NO_THROW(program_from_json(nested(int(kMaxSubProgramDepth))));
  Error e = read_error(nested(int(kMaxSubProgramDepth) + 1));
  EXPECT_NE(e.message().find("sub-programs nest more than 64 deep"), std::string::npos) << e.message();
}

// A message quotes a large value briefly.
TEST(ProgramJsonRead, MessagesQuoteValuesBriefly) {
  json j = valid();
  j["eqns"][0]["params"] = json::array();
  for (int i = 0; i < 10000; ++i) j["eqns"][0]["params"].push_back({{"k", std::string(100, 'x')}});
  Error e = read_error(j);
  EXPECT_NE(e.message().find("field 'params' is an object, got array [{\"k\":\"xxx"), std::string::npos) << e.message();
  EXPECT_LT(e.message().size(), 300u);
}

}  // namespace
}  // namespace tandem
