// GoogleTest main for tests of the suites: registers every primitive and every suite (register_suites.h), then runs the
// tests. tandem_add_test links it into every test that links tandem_suites.
#include <gtest/gtest.h>

#include "suites/register_suites.h"

int main(int argc, char** argv) {
  tandem::register_all_suites();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
