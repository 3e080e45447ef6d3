// The sweep's text output in nccl-tests' layout, so its users and their log parsers read it as they read
// all_reduce_perf: a "# nThread … validation" line, one row per size with size, count, type, redop and root, then
// out-of-place and in-place side by side (time in µs as the mean over iterations, algbw, busbw in GB/s, #wrong),
// closing with "# Out of bounds values" and "# Avg bus bandwidth". p50 and p99 (µs) per side are extra trailing columns
// with --percentiles 1. Also the dtype names nccl-tests' -d takes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/dtype.h"

namespace tandem::coll {

struct SweepOptions;  // sweep.h

// One side (out-of-place or in-place) of a row; absent prints N/A in every column.
struct Side {
  bool present = false;
  double time_s = 0, algbw = 0, busbw = 0, p50_s = 0, p99_s = 0;
  int64_t wrong = -1;  // elements that differ, summed over ranks; -1: not checked (-c 0)
};

// nccl-tests' time column: %7.0f above 10 ms, %7.1f above 100 µs, else %7.2f (µs).
std::string nccl_time(double seconds);
// The three header lines (group titles, column names, units).
std::string table_header(bool percentiles);
// One row, without the newline.
std::string table_row(int64_t bytes, int64_t count, DType t, const std::string& redop, int root,
                      const Side& out, const Side& in, bool percentiles);
// The closing lines: wrong elements in all rows, mean busbw of every printed side.
std::string table_footer(int64_t wrong, double avg_busbw);

// The opening lines: ranks, backend, groups and the time's meaning, then nccl-tests'
// "# nThread … validation" line and "#".
std::string sweep_banner(const SweepOptions& o, int ranks, const std::string& backend);
// "# Using devices": one line per rank with its host; `device` is this rank's, the others'
// are named by kind (cuda with nccl, else cpu).
std::string devices_table(const std::vector<std::string>& hosts, int my_rank, const std::string& device, bool nccl,
                          const std::string& backend);
// The line naming why an op's rows were skipped.
std::string skipped_line(const std::string& op, DType t, const std::string& redop, const std::string& why);
// The raw calls' table of an op, after its tandem table.
std::string raw_table(const std::string& op, const std::string& raw_name, DType t, const std::string& redop,
                      bool percentiles, const std::string& rows);

// nccl-tests' type names (float, half, bfloat16, double, int32) for the type column.
std::string nccl_type_name(DType t);
// -d: one of nccl-tests' names, tandem's (f32 …), or "all"; nullopt when unknown.
std::optional<std::vector<DType>> parse_sweep_dtypes(const std::string& name);
// Every name -d accepts, for help and validation.
std::vector<std::string> sweep_dtype_names();

}  // namespace tandem::coll
