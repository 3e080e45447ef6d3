// Records: one JSON object per case × backend (suite, case, params, backend, device,
// correctness, timing, derived metrics, context), and a writer that rewrites its file
// atomically after every record, so a crash or a failing case never loses earlier records.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"  // write_file_atomically
#include "harness/case.h"

namespace tandem {

inline constexpr const char* kRecordSchema = "tandem.records/1";

nlohmann::json make_record(const Case& c, const std::string& backend, const std::string& device, const CaseResult& r);

class RecordWriter {
 public:
  explicit RecordWriter(std::string path) : path_(std::move(path)) {}
  void add(nlohmann::json record);  // appends and rewrites the file atomically
  // The run is over: stamps run_end_context() (end load, end date) into every record's
  // context, marks the file "complete": true and rewrites it. Records of a run that never
  // finishes keep neither, so the Python tools can tell.
  void finish();
  const std::vector<nlohmann::json>& records() const { return records_; }

 private:
  void rewrite() const;
  std::string path_;
  std::vector<nlohmann::json> records_;
  bool complete_ = false;
};

// Google Benchmark's JSON format: harness/gbench_json.h.

}  // namespace tandem
