// The sweep's nccl-tests layout: rows split into nccl-tests' 13 columns (what log parsers index), the time column's
// three precisions, N/A for an absent side or an unchecked row, the closing lines, and -d's names.
#include <gtest/gtest.h>

#include <sstream>

#include "suites/collectives/sweep_format.h"

namespace tandem::coll {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

TEST(SweepFormat, RowHasNcclTestsColumns) {
  Side out{true, 12.5e-6, 0.08, 0.12, 12e-6, 20e-6, 0};
  Side in{true, 250e-6, 4.0, 6.0, 240e-6, 300e-6, -1};
  const auto w = words(table_row(1024, 256, DType::f32, "sum", -1, out, in, false));
  ASSERT_EQ(w.size(), 13u);
  EXPECT_EQ(w[0], "1024");
  EXPECT_EQ(w[1], "256");
  EXPECT_EQ(w[2], "float");
  EXPECT_EQ(w[3], "sum");
  EXPECT_EQ(w[4], "-1");
  EXPECT_EQ(w[5], "12.50");  // < 100 µs: two decimals
  EXPECT_EQ(w[7], "0.12");
  EXPECT_EQ(w[8], "0");
  EXPECT_EQ(w[9], "250.0");  // 100 µs – 10 ms: one decimal
  EXPECT_EQ(w[12], "N/A");   // not checked
  // The header's column names line up with the row's widths (a fixed-width reader).
  const std::string h = table_header(false);
  const std::string names = h.substr(h.find('\n') + 1);
  const std::string row = table_row(1024, 256, DType::f32, "sum", -1, out, in, false);
  EXPECT_EQ(names.find("#wrong") + 6, row.find(" 0 ") + 2);
}

TEST(SweepFormat, AbsentSideAndPercentiles) {
  Side out{true, 20e-3, 1, 1, 19e-3, 25e-3, 0}, none;
  const auto w = words(table_row(1 << 24, 1 << 22, DType::bf16, "none", 0, out, none, true));
  ASSERT_EQ(w.size(), 17u);
  EXPECT_EQ(w[2], "bfloat16");
  EXPECT_EQ(w[5], "20000");  // > 10 ms: no decimals
  for (int i = 9; i <= 12; ++i) EXPECT_EQ(w[size_t(i)], "N/A");
  EXPECT_EQ(w[13], "19000");  // out-of-place p50
  EXPECT_EQ(w[16], "N/A");    // in-place p99
}

TEST(SweepFormat, FooterAsNcclTests) {
  EXPECT_EQ(table_footer(0, 1.5), "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.5 \n#\n");
  EXPECT_NE(table_footer(3, 1.5).find("3 FAILED"), std::string::npos);
}

TEST(SweepFormat, DtypeNames) {
  EXPECT_EQ(parse_sweep_dtypes("half")->front(), DType::f16);
  EXPECT_EQ(parse_sweep_dtypes("f32")->front(), DType::f32);
  EXPECT_EQ(parse_sweep_dtypes("all")->size(), 5u);
  EXPECT_FALSE(parse_sweep_dtypes("fp8"));
}

}  // namespace
}  // namespace tandem::coll
