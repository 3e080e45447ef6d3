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

namespace {
// A record as nlohmann's dump(1) lays it out two levels deep, inside {"records": [...]}: JSON
// strings escape their newlines, so each raw newline of its own dump is a line break to indent.
std::string nested_text(const nlohmann::json& record) {
  std::string text = "  ";
  for (char ch : record.dump(1)) {
    text += ch;
    if (ch == '\n') text += "  ";
  }
  return text;
}
}  // namespace

// Each rewrite is the whole file (atomic), so one per record made a run quadratic in its records:
// the first record at once (a run killed early leaves it), then at most one every every_s.
void RecordWriter::add(nlohmann::json record) {
  texts_.push_back(nested_text(record));
  records_.push_back(std::move(record));
  unwritten_ = true;
  const auto since = std::chrono::steady_clock::now() - written_;
  if (records_.size() == 1 || since >= std::chrono::duration<double>(every_s_)) rewrite();
}

RecordWriter::~RecordWriter() {
  try {
    if (unwritten_) rewrite();
  } catch (...) {  // the error that ended the run is the one to report
  }
}

void RecordWriter::finish() {
  const nlohmann::json end = run_end_context();
  for (size_t i = 0; i < records_.size(); ++i)
    if (records_[i].contains("context")) {
      records_[i]["context"].update(end);
      texts_[i] = nested_text(records_[i]);
    }
  complete_ = true;
  rewrite();
}

// The bytes of dump(1) of {"complete", "records", "schema"} (nlohmann sorts the keys), joined
// from each record's text made once (dumping the whole document each time: 49 s of CPU for the
// quick profile's 1,157 records, lab/pages/ci.md).
void RecordWriter::rewrite() {
  std::string doc = complete_ ? "{\n \"complete\": true,\n \"records\": [" : "{\n \"records\": [";
  for (size_t i = 0; i < texts_.size(); ++i) doc.append(i ? ",\n" : "\n").append(texts_[i]);
  doc += texts_.empty() ? "]" : "\n ]";
  doc += ",\n \"schema\": " + nlohmann::json(kRecordSchema).dump() + "\n}\n";
  write_file_atomically(path_, doc);
  written_ = std::chrono::steady_clock::now();
  unwritten_ = false;
}

}  // namespace tandem
