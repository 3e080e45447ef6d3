// Records: the JSON carries what DESIGN.md lists, files are replaced atomically and every
// record written so far survives, and the Google Benchmark JSON has its expected shape.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "suites/common/records.h"

namespace tandem {
namespace {

Case fake_case() {
  Case c;
  c.suite = "dot";
  c.name = "dot/M:2/K:3/N:4/alg:F32_F32_F32";
  c.params = {{"m", 2}};
  return c;
}

TEST(Records, CarriesDesignFields) {
  CaseResult r;
  r.samples_s = {0.002, 0.001, 0.003};
  r.metrics.push_back({"gflops", 1.5, "GFLOP/s", "higher"});
  nlohmann::json j = make_record(fake_case(), "cpu", "cpu", r);
  for (const char* k : {"schema", "suite", "case", "params", "backend", "device", "verdict",
                        "correctness", "timing", "metrics", "context"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["case"], "dot/M:2/K:3/N:4/alg:F32_F32_F32/cpu");
  EXPECT_EQ(j["timing"]["median"], 0.002);
  EXPECT_EQ(j["timing"]["min"], 0.001);
  EXPECT_TRUE(j["context"].contains("git_sha"));
  EXPECT_TRUE(j["context"].contains("blas"));
}

TEST(Records, WriterKeepsEveryRecordAndLeavesNoTempFiles) {
  auto dir = std::filesystem::temp_directory_path() / "tandem_records_test";
  std::filesystem::remove_all(dir);
  std::string path = (dir / "records.json").string();
  RecordWriter w(path);
  CaseResult ok, bad;
  bad.verdict = Verdict::fail;
  w.add(make_record(fake_case(), "cpu", "cpu", ok));
  w.add(make_record(fake_case(), "cuda", "cuda:0", bad));
  std::ifstream f(path);
  nlohmann::json doc = nlohmann::json::parse(f);
  EXPECT_EQ(doc["schema"], kRecordSchema);
  ASSERT_EQ(doc["records"].size(), 2u);
  EXPECT_EQ(doc["records"][1]["verdict"], "fail");
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) { (void)e; ++files; }
  EXPECT_EQ(files, 1);
}

TEST(Records, GoogleBenchmarkShape) {
  CaseResult r;
  r.samples_s = {0.5};
  auto gb = google_benchmark_json({make_record(fake_case(), "cpu", "cpu", r)});
  ASSERT_EQ(gb["benchmarks"].size(), 1u);
  EXPECT_EQ(gb["benchmarks"][0]["time_unit"], "ns");
  EXPECT_EQ(gb["benchmarks"][0]["real_time"], 0.5e9);
  EXPECT_TRUE(gb.contains("context"));
}

}  // namespace
}  // namespace tandem
