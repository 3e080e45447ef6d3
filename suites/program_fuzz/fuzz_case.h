// One fuzz case: a generated Program, the chain of transformations applied to it, and the
// arguments of what runs. Everything is a function of the case's seed (generate_case), and a
// case (shrunk or not) is written as a replayable JSON file (fuzz_case_json.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"
#include "engine/passes/vmap.h"
#include "suites/program_fuzz/gen_state.h"

namespace tandem::fuzz {

// The transformations a case composes, innermost first. scan and checkpoint (every policy)
// are equations inside the program; these are applied to the whole program:
//   plain        the program
//   vjp          reverse mode under a top-level policy: outputs, then input cotangents
//   vmap         vmap over axis "i" (collectives over "i" then run across the examples)
//   vmap_of_vjp  vmap of the joint forward+backward program (per-example gradients)
//   hoist        hoist_scan_reductions (the loss moved into the scan body)
//   hoist_vjp    reverse mode of the hoisted program
enum class ChainKind { plain, vjp, vmap, vmap_of_vjp, hoist, hoist_vjp };
const char* chain_name(ChainKind k);
ChainKind parse_chain(const std::string& s);  // bad input lists the names
inline constexpr ChainKind kAllChains[] = {ChainKind::plain, ChainKind::vjp, ChainKind::vmap,
                                           ChainKind::vmap_of_vjp, ChainKind::hoist, ChainKind::hoist_vjp};
bool differentiates(ChainKind k);
bool vmaps(ChainKind k);

struct Chain {
  ChainKind kind = ChainKind::plain;
  std::vector<VmapAxis> in_axes, out_axes;  // vmap kinds: of the program vmapped (the joint one for vmap_of_vjp)
  int64_t axis_size = 1;
  bool accumulate_in_carry = false;          // hoist kinds
  std::string top_policy = "everything_saveable";  // vjp kinds
};

struct FuzzCase {
  uint64_t seed = 0;
  Program program;                 // the program before the chain
  Chain chain;
  std::vector<Tensor> args;        // what the transformed program takes (batched for vmap kinds)
  std::vector<Tensor> cotangents;  // vjp and hoist_vjp: one per program output
  std::vector<bool> wrt;           // the inputs differentiated (empty: every floating one)
};

struct FuzzOptions {
  GenConfig gen;
  std::vector<ChainKind> chains = {std::begin(kAllChains), std::end(kAllChains)};
};

FuzzCase generate_case(uint64_t seed, const FuzzOptions& options);

// The program the chain's vmap maps (the joint vjp program for vmap_of_vjp).
Program vmapped_program(const FuzzCase& c);
// The case under another chain, where the arguments carry over (plain, vjp, hoist, hoist_vjp
// among themselves; cotangents made or dropped): which transformation a failure needs.
FuzzCase rechain(const FuzzCase& c, ChainKind kind);
// Fresh arguments for a changed program (the shrinker's): args and cotangents of c's chain.
void make_arguments(FuzzCase& c, Rng& rng, double special_rate);

}  // namespace tandem::fuzz
