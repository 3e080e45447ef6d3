// A binary that never calls register_all_primitives() / register_all_suites() (it links
// GoogleTest's own main on purpose): every lookup is a loud internal error naming the call
// it forgot, never an "unknown primitive" or an empty case list that passes on nothing.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "harness/case.h"

namespace tandem {
namespace {

void expect_internal_naming(const std::function<void()>& f, const std::string& call) {
  try {
    f();
    ADD_FAILURE() << "no error from an unfilled registry";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::internal);
    EXPECT_NE(e.message().find("registry is empty: " + call + " was not called"), std::string::npos) << e.message();
  }
}

TEST(UnfilledRegistry, PrimitiveLookupsNameTheMissingRegistration) {
  expect_internal_naming([] { primitive("add"); }, "register_all_primitives()");
  expect_internal_naming([] { primitive_names(); }, "register_all_primitives()");
}

TEST(UnfilledRegistry, CaseSelectionNamesTheMissingRegistration) {
  expect_internal_naming([] { registry().select("quick", "", ""); }, "register_all_suites()");
  expect_internal_naming([] { registry().cases(); }, "register_all_suites()");
}

}  // namespace
}  // namespace tandem
