// The quick profile of every suite as tests: one test per case × backend. A case passes or
// skips with a reason (an unsupported preset, no GPU); a mismatch or an error fails.
#include <gtest/gtest.h>

#include "harness/harness.h"

namespace tandem {
namespace {

struct Param {
  const Case* c;
  Device device;
};

class QuickCase : public ::testing::TestWithParam<Param> {};

TEST_P(QuickCase, MatchesReference) {
  const Param& p = GetParam();
  RunOptions opts;
  opts.device = p.device;
  opts.time = false;
  CaseResult r = run_case(*p.c, opts);
  if (r.verdict == Verdict::skip) GTEST_SKIP() << r.message;
  EXPECT_EQ(r.verdict, Verdict::pass) << p.c->name << "\n" << r.message << "\n" << r.correctness.dump(1);
}

std::vector<Param> quick_params() {
  std::vector<Param> v;
  for (const Case* c : registry().select("quick", "", ""))
    for (Device d : {Device::cpu(), Device::cuda(0)}) v.push_back({c, d});
  return v;
}

std::string test_name(const ::testing::TestParamInfo<Param>& info) {
  std::string n = info.param.c->name + "_" + (info.param.device.kind == DeviceKind::cpu ? "cpu" : "cuda");
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Quick, QuickCase, ::testing::ValuesIn(quick_params()), test_name);

}  // namespace
}  // namespace tandem
