// The reference model of collective programs: a Program whose collectives name axes of a mesh (rank-major named axes,
// e.g. {"ranks": 4, "batch": 3}, or the examples of a vmap as "virtual ranks") evaluated for every member at once. Each
// equation runs per member through the reference rule table; a collective runs once over all members through the
// reference's own model of the collectives (reference/collectives.h), one group per combination of the axes it does not
// name. Collectives inside scan / checkpoint bodies are not modelled here (a clear bad-input error).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "engine/ir/ir.h"
#include "reference/reference.h"

namespace tandem {

// Axes row-major: member m's coordinate on the last axis varies fastest.
struct RefMesh {
  std::vector<std::pair<std::string, int>> axes;
  int members() const;
};

// inputs[m] are member m's program inputs; returns each member's outputs.
std::vector<std::vector<ref::Array>> reference_eval_mesh(const Program& program,
                                                         const std::vector<std::vector<ref::Array>>& inputs,
                                                         const RefMesh& mesh);

}  // namespace tandem
