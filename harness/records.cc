// Record building and atomic writes.
#include "harness/records.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "harness/context.h"
#include "harness/timing.h"

namespace tandem {

nlohmann::json make_record(const Case& c, const std::string& backend, const std::string& device, const CaseResult& r) {
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
  if (!r.samples_s.empty()) rec["timing"] = timing_json(r.samples_s, r.cpu_samples_s);
  if (!r.samples_s.empty() && r.anchor_samples_s.size() == r.samples_s.size()) {
    std::vector<double> ratio;  // repetition i over the anchor run beside it
    for (size_t i = 0; i < r.samples_s.size(); ++i) ratio.push_back(r.samples_s[i] / r.anchor_samples_s[i]);
    rec["anchor"] = {{"name", r.anchor_name}, {"kind", r.anchor_kind}, {"samples", r.anchor_samples_s},
                     {"median", summarize(r.anchor_samples_s).median}, {"ratio_median", summarize(ratio).median},
                     {"calls", r.anchor_calls}};
    if (r.anchor_cpu_samples_s.size() == r.samples_s.size()) rec["anchor"]["cpu_samples"] = r.anchor_cpu_samples_s;
  }
  return rec;
}

void RecordWriter::add(nlohmann::json record) {
  records_.push_back(std::move(record));
  rewrite();
}

void RecordWriter::finish() {
  const nlohmann::json end = run_end_context();
  for (auto& r : records_)
    if (r.contains("context")) r["context"].update(end);
  complete_ = true;
  rewrite();
}

void RecordWriter::rewrite() const {
  nlohmann::json doc = {{"schema", kRecordSchema}, {"records", records_}};
  if (complete_) doc["complete"] = true;
  write_file_atomically(path_, doc.dump(1) + "\n");
}

}  // namespace tandem
