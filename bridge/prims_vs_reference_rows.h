// The engine-vs-reference rows, a table keyed by primitive name: the programs that check that
// primitive (they may use others too). prims_vs_reference_test.cc defines and runs them;
// primitive_coverage_test.cc checks that every registered primitive has rows that use it.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

struct Row {
  std::string name;
  std::vector<AType> inputs;
  std::function<std::vector<Value>(Builder&, const std::vector<Value>&)> fn;
  double lo = -2, hi = 2;  // input range (log and sqrt want positives)
  double ulps = 4;         // forward tolerance, in units of roundoff of each output's dtype
  // The engine's vjp against the reference's tape, in units of roundoff of the input dtype,
  // when every input is f64 or every input is f32 and every output is floating; 0: skip.
  double grad_ulps = 64;
  // Named axes bound as worlds of one member on both sides (collective rows; the multi-member
  // checks are suites/vmap's, against the mesh reference).
  std::vector<std::string> axes = {};
  // Given input values, row-major per input, instead of seeded uniform draws in [lo, hi)
  // (the convert_ties rows: exact ties of the target format, which random draws never hit).
  std::vector<std::vector<double>> values = {};
};

const std::map<std::string, std::vector<Row>>& prims_vs_reference_rows();
// gather, scatter_add and sort (prims_vs_reference_gather_sort.cc).
void add_gather_sort_rows(std::map<std::string, std::vector<Row>>& rows);
// reduce_window_max and reduce_window_sum (prims_vs_reference_window.cc).
void add_window_rows(std::map<std::string, std::vector<Row>>& rows);
// cond (prims_vs_reference_cond.cc).
void add_cond_rows(std::map<std::string, std::vector<Row>>& rows);

// Rows of primitive families written in files of their own (prims_vs_reference_rows_conv.cc).
void add_conv_rows(const std::function<void(const std::string&, Row)>& add);
// not, and, or, xor, rem's integer edges, pow, round, reduce_prod/and/or, argmax/argmin
// (prims_vs_reference_rows_logical.cc).
void add_logical_rows(const std::function<void(const std::string&, Row)>& add);

}  // namespace tandem
