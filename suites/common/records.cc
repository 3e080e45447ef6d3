// Record building and atomic writes.
#include "suites/common/records.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "suites/common/context.h"
#include "suites/common/timing.h"

namespace tandem {

nlohmann::json make_record(const Case& c, const std::string& backend, const std::string& device,
                           const CaseResult& r) {
  nlohmann::json metrics = nlohmann::json::array();
  for (const Metric& m : r.metrics)
    metrics.push_back({{"name", m.name}, {"value", m.value}, {"unit", m.unit}, {"direction", m.direction}});
  nlohmann::json rec = {
      {"schema", kRecordSchema},
      {"suite", c.suite},
      {"case", c.name + "/" + backend},
      {"params", c.params},
      {"backend", backend},
      {"device", device},
      {"verdict", verdict_name(r.verdict)},
      {"message", r.message},
      {"correctness", r.correctness},
      {"metrics", metrics},
      {"info", r.info},
      {"context", run_context()},
  };
  if (!r.samples_s.empty()) rec["timing"] = timing_json(r.samples_s);
  return rec;
}

void RecordWriter::add(nlohmann::json record) {
  records_.push_back(std::move(record));
  nlohmann::json doc = {{"schema", kRecordSchema}, {"records", records_}};
  write_file_atomically(path_, doc.dump(1) + "\n");
}

nlohmann::json google_benchmark_json(const std::vector<nlohmann::json>& records) {
  nlohmann::json benches = nlohmann::json::array();
  for (const auto& r : records) {
    if (!r.contains("timing")) continue;
    const auto& t = r["timing"];
    nlohmann::json b = {{"name", r["case"]}, {"run_name", r["case"]}, {"run_type", "iteration"},
                        {"repetitions", t["repetitions"]}, {"iterations", 1},
                        {"real_time", t["median"].get<double>() * 1e9},
                        {"cpu_time", t["median"].get<double>() * 1e9}, {"time_unit", "ns"}};
    for (const auto& m : r["metrics"]) b[m["name"].get<std::string>()] = m["value"];
    benches.push_back(b);
  }
  const auto ctx = run_context();
  return {{"context", {{"host_name", ctx["host"]}, {"executable", "tandem"},
                       {"library_build_type", ctx["build_type"]}, {"tandem", ctx}}},
          {"benchmarks", benches}};
}

}  // namespace tandem
