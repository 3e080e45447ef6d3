// GoogleTest main for engine tests: registers every primitive (register_all.h), then runs
// the tests. tandem_add_test links it into every test that links tandem_engine.
#include <gtest/gtest.h>

#include "engine/prims/register_all.h"

int main(int argc, char** argv) {
  tandem::register_all_primitives();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
