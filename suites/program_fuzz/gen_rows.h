// The generator table: for every registered primitive, how the fuzzer makes a random but
// well-typed equation of it from the pool (gen_state.h). One row per primitive, as the
// reference rule table has one: unary and binary elementwise primitives get theirs from
// their trait, the rest are written in gen_rows_*.cc. A primitive with no row is listed in
// not_generated with the reason; gen_rows_test checks that every registered primitive is in
// one of the two, so a new primitive is fuzzed by adding its row.
#pragma once
#include <functional>
#include <map>
#include <string>

#include "suites/program_fuzz/gen_state.h"

namespace tandem::fuzz {

struct GenRow {
  // Binds one or more equations that use the primitive (operands from s.pool, results kept
  // in it); false when it cannot apply now (no suitable operand, or depth exhausted).
  std::function<bool(GenState& s)> emit;
  double weight = 1;  // relative frequency among the rows
};

struct GenTable {
  std::map<std::string, GenRow> rows;
  std::map<std::string, std::string> not_generated;  // primitive -> why the fuzzer leaves it out
};

const GenTable& gen_table();

// The rows written in each family file.
void add_elementwise_rows(GenTable& t);   // gen_rows_elementwise.cc (the trait-derived ones too)
void add_structure_rows(GenTable& t);     // gen_rows_structure.cc (shapes, reductions, dot_general)
void add_control_rows(GenTable& t);       // gen_rows_control.cc (scan, while, cond, checkpoint, collectives, ...)
void add_conv_rows(GenTable& t);          // gen_rows_conv.cc (conv_general_dilated)
void add_indexing_rows(GenTable& t);      // gen_rows_indexing.cc (gather, scatter_add, scatter, sort)
void add_logical_rows(GenTable& t);       // gen_rows_logical.cc (not/and/or/xor, round, reduce_prod/and/or, argmax/min)
void add_window_rows(GenTable& t);        // gen_rows_window.cc (reduce_window_max, reduce_window_sum)

// One equation of a random row (weighted) into s; false after a few rows that did not apply.
bool emit_random_row(GenState& s);

}  // namespace tandem::fuzz
