// The reference's reverse mode applied to an engine Program: interprets the program with
// the reference's taped ops (reference/grad_tape.h: every intermediate stored, no remat, no
// policies, checkpoints inlined, scans unrolled step by step) and returns the cotangents.
// Each equation is recorded by its primitive's tape rule in the reference rule table
// (reference_rules.h). The oracle the remat suite and the prims_vs_reference rows compare the
// engine's vjp with (the reference itself never sees engine/).
#pragma once
#include <vector>

#include "engine/ir/ir.h"
#include "reference/array.h"
#include "reference/grad_tape.h"

namespace tandem {

// d(sum_k <out_k, out_cts_k>)/d in_i for every floating input i, in input order; integer
// and bool inputs are constants (no cotangent returned for them).
// hold: ref::Tape::gradients' hook on each value's cotangent (none: the exact f64 backward).
std::vector<ref::Array> reference_vjp(const Program& program, const std::vector<ref::Array>& inputs,
                                      const std::vector<ref::Array>& out_cts, const ref::Tape::Hold& hold = {});

}  // namespace tandem
