// The fuzzer's oracle: what a case's chain must produce, computed by the independent
// reference (bridge/reference_bridge.h, reference_vjp.h, reference_collectives.h) from
// the untransformed program — vmap by a loop over the examples (a mesh of members when the
// program's collectives run over the vmapped axis), reverse mode by the reference's tape, the
// hoisting pass and every checkpoint policy by the program they must equal.
//
// The reference runs four ways, and the tolerance comes from them (fuzz_compare.h):
//   wide       every floating value in f64 (the program widened by widen(); an explicit
//              convert_element_type to a narrower float still rounds): the truth.
//   own        the program's own dtypes, each operation rounded as the engine rounds, a dot
//              preset's bf16 / f16 operands and narrow accumulator included.
//   perturbed  own, plus each operation's error bound with a random sign per element: one
//              unit of roundoff on an elementwise result (none where it equals an operand,
//              so exact ties stay ties), and on a sum (dot_general, reduce_sum) the bound
//              (2·u_in + K·u_acc)·Σ|a|·|b| that holds for any summation order.
//   scaled     perturbed with every sign upward (which random signs cancel half the time).
// Their distance from wide is how far this program's rounding can move each result at these
// inputs.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/ir/ir.h"
#include "reference/array.h"
#include "suites/program_fuzz/fuzz_case.h"
#include "suites/program_fuzz/fuzz_rounding.h"  // rounding_of, dot_input_roundoff

namespace tandem::fuzz {

enum class RefVariant { wide, own, perturbed, scaled };

// Flat results in the engine's order (fuzz_engine.h): the outputs, then for differentiating
// chains the cotangents of the floating inputs; for vmap kinds stacked along out_axes.
// nonfinite_forward (optional): set when an equation of the forward made a NaN or an infinity
// (own variant), where a backward's 0·inf depends on whether a zero cotangent is symbolic or
// instantiated — which JAX decides per primitive (a scan's transpose instantiates) — or a
// value whose square leaves its dtype's range (fuzz_limits.h): the rules that square or invert
// it overflow in the engine's dtype as in JAX's, never in the tape's f64.
// forward (optional, wide and own variants of a differentiating chain only): the outputs this
// variant's forward gives, already computed (by the plain chain's run of the same program and
// arguments, which computes exactly them: the wide walk, or the own walk that draws nothing), so
// the vjp's reference runs its tape without walking the forward once more.
std::vector<ref::Array> reference_results(const FuzzCase& c, RefVariant variant, uint64_t perturb_seed = 0,
                                          bool* nonfinite_forward = nullptr,
                                          const std::vector<ref::Array>* forward = nullptr);

// p with every f32 / bf16 / f16 value in f64 (literals keep their rounded value); a convert
// to a narrower float becomes a convert to it and back to f64, so the rounding stays.
Program widen(const Program& p);

// The largest relative error one equation of p (sub-programs included) can make by the
// model above, and at least the roundoff of every floating dtype p computes in (a cotangent
// passes through each): a normwise scale for results the perturbed runs cannot reach.
double program_roundoff(const Program& p);

// Whether p (sub-programs included) has a collective equation.
bool has_collective(const Program& p);

}  // namespace tandem::fuzz
