// nccl-tests' -J file, written by `tandem collectives -J out.json [-I 1 [-K n]]` so that nccl-tests' own readers
// (tools/analyze_perf_json.py: stragglers, spikes, iteration 0, per-node views) read a tandem sweep. Keys, nesting and
// value spellings follow nccl-tests' JSON writer, version 3 (src/util.cu and src/common.cu of NVIDIA/nccl-tests
// v2.19.6, a0b82b2); the values are tandem's. This file only builds the document; the sweep gathers the numbers and
// rank 0 writes the file once, atomically.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "suites/collectives/sweep.h"

namespace tandem::coll {

// nccl-tests streams its keys: ours keep that order, so the files diff alike.
using OrderedJson = nlohmann::ordered_json;

// One rank of config.devices; device: the CUDA index, -1 for host buffers; info: "cuda:0", "cpu".
struct NtDevice {
  std::string host, info;
  int64_t pid = 0;
  int device = -1;
};

// One side (out of place or in place) of a result.
struct NtSide {
  bool present = false;
  double time_s = 0, algbw = 0, busbw = 0;
  int64_t wrong = -1;                          // -1: not checked, "nwrong": null
  std::vector<std::vector<double>> per_rank;  // seconds, [rank][iteration]; empty without -I 1
};

// One line of the table; name: experiment_name ("psum", "psum raw MPI_Allreduce").
struct NtResult {
  int64_t bytes = 0, count = 0;
  std::string type, redop, name;
  int root = -1;
  NtSide side[2];  // [inplace]
};

// The document up to config (nccl-tests writes results, the summary and end_time later).
OrderedJson nt_document(const SweepOptions& o, const std::vector<NtDevice>& devices);
// One entry of "results".
OrderedJson nt_result(const NtResult& r, const SweepOptions& o);
// out_of_bounds, average_bus_bandwidth, errors and end_time, as nccl-tests closes its file.
void nt_finish(OrderedJson& doc, int64_t wrong, double avg_busbw);

}  // namespace tandem::coll
