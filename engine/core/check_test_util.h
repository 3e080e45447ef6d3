// For tests of the CHECK family: runs a call that must fail a CHECK and returns the thrown
// Error's message (a test failure, and "", if it did not throw or threw another kind).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "engine/core/error.h"

namespace tandem::check {

template <class F>
std::string failure_message_of(F fail) {
  try {
    fail();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::internal) << e.what();
    return e.message();
  }
  ADD_FAILURE() << "the CHECK did not throw";
  return "";
}

}  // namespace tandem::check
