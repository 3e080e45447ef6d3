// Records: one JSON object per case × backend (suite, case, params, backend, device,
// correctness, timing, derived metrics, context), and a writer that replaces its file atomically
// with every record so far (the first at once, then at most once a second, and at the end): a
// failing or crashing case (in its own process) loses none, a killed run its last second's.
#pragma once
#include <chrono>
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
  // every_s: the least time between two rewrites after the first record's (0: after each).
  explicit RecordWriter(std::string path, double every_s = 1.0) : path_(std::move(path)), every_s_(every_s) {}
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  ~RecordWriter();  // writes what the last rewrite missed: a run that ends in an error keeps it
  void add(nlohmann::json record);  // appends; rewrites the file atomically unless within every_s
  // The run is over: stamps run_end_context() (end load, end date) into every record's
  // context, marks the file "complete": true and rewrites it. Records of a run that never
  // finishes keep neither, so the Python tools can tell.
  void finish();
  const std::vector<nlohmann::json>& records() const { return records_; }

 private:
  void rewrite();
  std::string path_;
  double every_s_;
  std::vector<nlohmann::json> records_;
  std::vector<std::string> texts_;  // each record's part of the file, serialized once
  std::chrono::steady_clock::time_point written_;  // the last rewrite
  bool unwritten_ = false, complete_ = false;
};

// Google Benchmark's JSON format: harness/gbench_json.h.

}  // namespace tandem
