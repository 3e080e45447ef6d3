// Records: the JSON carries what DESIGN.md lists, files are replaced atomically and every
// record written so far survives, and the Google Benchmark JSON has its expected shape.
#include <gtest/gtest.h>

#include <unistd.h>
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "harness/gbench_json.h"
#include "harness/records.h"

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
  RecordWriter w(path, 0);  // a rewrite after each record
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

// The file is byte for byte nlohmann's dump(1) of the document, before and after finish(), with
// a message that holds newlines and quotes (escaped in the dump, so no line break of the layout).
TEST(Records, WriterFileIsTheDocumentsDump) {
  auto dir = std::filesystem::temp_directory_path() / ("tandem_dump_" + std::to_string(::getpid()));
  const std::string path = (dir / "records.json").string();
  auto file = [&] { std::ifstream f(path); return std::string(std::istreambuf_iterator<char>(f), {}); };
  RecordWriter w(path);
  nlohmann::json doc = {{"schema", kRecordSchema}, {"records", nlohmann::json::array()}, {"complete", true}};
  w.finish();  // no record at all
  EXPECT_EQ(file(), doc.dump(1) + "\n");
  doc.erase("complete");
  RecordWriter v(path, 0);
  CaseResult r;
  r.message = "line one\n  \"two\"\n", r.samples_s = {0.5, 0.25};
  for (int i = 0; i < 3; ++i) {
    v.add(make_record(fake_case(), "cpu", "cpu", r));
    doc["records"].push_back(v.records().back());
    EXPECT_EQ(file(), doc.dump(1) + "\n") << i;
  }
  v.finish();
  EXPECT_EQ(file(), nlohmann::json({{"schema", kRecordSchema}, {"records", v.records()}, {"complete", true}}).dump(1) + "\n");
  std::filesystem::remove_all(dir);
}

// The first record is on disk at once, the next ones once every_s has passed since the last
// rewrite, and whatever is left when the writer goes (a run that ended in an error).
TEST(Records, WriterRewritesAtMostOnceAnIntervalAndAtTheEnd) {
  auto dir = std::filesystem::temp_directory_path() / ("tandem_every_" + std::to_string(::getpid()));
  const std::string path = (dir / "records.json").string();
  auto count = [&] { return nlohmann::json::parse(std::ifstream(path))["records"].size(); };
  {
    RecordWriter w(path, 0.5);
    for (size_t want : {1, 1, 1, 4, 4}) {
      if (want == 4 && count() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(600));
      w.add(make_record(fake_case(), "cpu", "cpu", CaseResult{}));
      EXPECT_EQ(count(), want);
    }
  }
  EXPECT_EQ(count(), 5u);
  std::filesystem::remove_all(dir);
}

// Adding a record costs its own serialization, not the whole file's again: 200 records of ~4 KB
// through the writer cost a few times one dump of them all (the writer that dumped the whole
// document after each record: ~100 times, 49 s of CPU for the quick profile's 1,157 records).
// CPU time, both measured here, so the machine's speed and load cancel.
TEST(Records, WriterCostIsLinearInTheRecords) {
  auto dir = std::filesystem::temp_directory_path() / ("tandem_linear_" + std::to_string(::getpid()));
  auto cpu_s = [] { return double(std::clock()) / CLOCKS_PER_SEC; };
  CaseResult r;
  for (int i = 0; i < 200; ++i) r.samples_s.push_back(1e-3 + 1e-7 * i);
  std::vector<nlohmann::json> records(200, make_record(fake_case(), "cpu", "cpu", r));
  double t0 = cpu_s();
  size_t size = (nlohmann::json{{"records", records}}).dump(1).size();
  const double one_dump = cpu_s() - t0;
  ASSERT_GT(size, 200u * 4000u);
  RecordWriter w((dir / "records.json").string());
  t0 = cpu_s();
  for (const auto& rec : records) w.add(rec);
  w.finish();
  const double writer = cpu_s() - t0;
  EXPECT_LT(writer, 10 * one_dump + 0.05) << "the writer " << writer << " s of CPU, one dump " << one_dump << " s";
  std::filesystem::remove_all(dir);
}

// What Google Benchmark's compare.py reads: per repetition real_time and cpu_time under one
// name (its U test), aggregates under name_<aggregate> with run_type/aggregate_name.
TEST(Records, GoogleBenchmarkRepetitionsAndAggregates) {
  CaseResult r;
  r.samples_s = {0.002, 0.001, 0.003};
  r.cpu_samples_s = {0.004, 0.002, 0.006};
  r.metrics.push_back({"gflops", 1.5, "GFLOP/s", "higher"});
  auto gb = google_benchmark_json({make_record(fake_case(), "cpu", "cpu", r)});
  const std::string name = "dot/M:2/K:3/N:4/alg:F32_F32_F32/cpu";
  const auto& b = gb["benchmarks"];
  ASSERT_EQ(b.size(), 3u + 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(b[i]["name"], name);
    EXPECT_EQ(b[i]["run_type"], "iteration");
    EXPECT_EQ(b[i]["repetition_index"], i);
    EXPECT_EQ(b[i]["time_unit"], "ns");
    EXPECT_DOUBLE_EQ(b[i]["real_time"].get<double>(), r.samples_s[i] * 1e9);
    EXPECT_DOUBLE_EQ(b[i]["cpu_time"].get<double>(), r.cpu_samples_s[i] * 1e9);
  }
  EXPECT_EQ(b[4]["name"], name + "_median");
  EXPECT_EQ(b[4]["run_type"], "aggregate");
  EXPECT_EQ(b[4]["aggregate_name"], "median");
  EXPECT_DOUBLE_EQ(b[4]["real_time"].get<double>(), 2e6);
  EXPECT_DOUBLE_EQ(b[4]["cpu_time"].get<double>(), 4e6);
  EXPECT_EQ(b[4]["gflops"], 1.5);
  for (const char* k : {"date", "num_cpus", "mhz_per_cpu", "caches", "load_avg", "host_name"})
    EXPECT_TRUE(gb["context"].contains(k)) << k;
  EXPECT_GT(gb["context"]["num_cpus"].get<int>(), 0);
}

TEST(Records, ContextSaysWhenWhereAndWhat) {
  nlohmann::json c = make_record(fake_case(), "cpu", "cpu", CaseResult{})["context"];
  for (const char* k : {"date", "cpu_model", "cpu_cores", "cpu_threads", "load_avg_start", "git_sha",
                        "git_sha_source", "command_line"})
    EXPECT_TRUE(c.contains(k)) << k;
  EXPECT_EQ(c["date"].get<std::string>().size(), std::string("2026-11-23T12:41:49Z").size());
  EXPECT_NE(c["command_line"].get<std::string>().find("harness_test"), std::string::npos);
  EXPECT_FALSE(c.contains("load_avg_end"));
}

// The ISA the kernels dispatched to: the vector clone as the CPU answers GCC's resolver's question,
// oneDNN's and OpenBLAS's choices where they are built in.
TEST(Records, ContextNamesTheIsaTheKernelsDispatchedTo) {
  nlohmann::json isa = make_record(fake_case(), "cpu", "cpu", CaseResult{})["context"]["isa"];
  ASSERT_TRUE(isa.is_object());
  const std::string clone = isa["vector_clones"].get<std::string>();
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  __builtin_cpu_init();
  EXPECT_EQ(clone, __builtin_cpu_supports("x86-64-v4")   ? "x86-64-v4"
                   : __builtin_cpu_supports("x86-64-v3") ? "x86-64-v3"
                                                         : "default");
  EXPECT_FALSE(isa.contains("arch"));  // x86 records keep the fields their baselines have
#else
  EXPECT_EQ(clone, "none");
#endif
#if defined(__aarch64__) && defined(__linux__)
  // No clones here: the architecture and the kernel's feature bits name the ISA instead. Linux on
  // arm64 requires fp and asimd; sve is named exactly when AT_HWCAP has it, with its length.
  EXPECT_EQ(isa["arch"], "aarch64");
  const std::string caps = " " + isa["hwcaps"].get<std::string>() + " ";
  EXPECT_NE(caps.find(" fp asimd "), std::string::npos) << caps;
  const bool sve = getauxval(AT_HWCAP) & HWCAP_SVE;
  EXPECT_EQ(caps.find(" sve ") != std::string::npos, sve) << caps;
  EXPECT_EQ(isa.contains("sve_bits"), sve);
#endif
#ifdef TANDEM_HAVE_ONEDNN
  EXPECT_FALSE(isa["onednn"].get<std::string>().empty());
#else
  EXPECT_FALSE(isa.contains("onednn"));
#endif
#ifdef TANDEM_BLAS_OPENBLAS
  EXPECT_FALSE(isa["openblas_core"].get<std::string>().empty());
#endif
}

TEST(Records, FinishStampsTheEndAndCompletes) {
  auto dir = std::filesystem::temp_directory_path() / ("tandem_finish_" + std::to_string(::getpid()));
  RecordWriter w((dir / "records.json").string());
  w.add(make_record(fake_case(), "cpu", "cpu", CaseResult{}));
  auto read = [&] { return nlohmann::json::parse(std::ifstream(dir / "records.json")); };
  EXPECT_FALSE(read().contains("complete"));
  w.finish();
  nlohmann::json doc = read();
  EXPECT_EQ(doc["complete"], true);
  EXPECT_TRUE(doc["records"][0]["context"].contains("load_avg_end"));
  EXPECT_TRUE(doc["records"][0]["context"].contains("date_end"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tandem
