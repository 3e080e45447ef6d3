// The generator table covers every registered primitive (a row, or a reason it has none), and
// generation is reproducible from the seed.
#include <gtest/gtest.h>

#include "engine/ir/primitive.h"
#include "engine/ir/printer.h"
#include "suites/program_fuzz/fuzz_case.h"
#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {
namespace {

TEST(GenRows, EveryRegisteredPrimitiveHasARowOrAReason) {
  const GenTable& t = gen_table();
  for (const std::string& name : primitive_names()) {
    const bool row = t.rows.count(name) > 0, reason = t.not_generated.count(name) > 0;
    EXPECT_TRUE(row != reason) << name << ": needs exactly one of a generator row or a not_generated reason";
  }
  for (const auto& [name, row] : t.rows) EXPECT_NO_THROW(primitive(name)) << name << " is not a registered primitive";
}

TEST(GenRows, ACaseIsAFunctionOfItsSeed) {
  FuzzOptions o;
  for (uint64_t seed : {1ull, 42ull, 977ull}) {
    const FuzzCase a = generate_case(seed, o), b = generate_case(seed, o);
    EXPECT_EQ(to_string(a.program), to_string(b.program));
    ASSERT_EQ(a.args.size(), b.args.size());
    for (size_t i = 0; i < a.args.size(); ++i) EXPECT_EQ(a.args[i].to_f64(), b.args[i].to_f64());
  }
}

}  // namespace
}  // namespace tandem::fuzz
