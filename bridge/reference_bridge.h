// The bridge between the engine and the reference, which never see each other: converts
// tensors to reference arrays, and evaluates an engine Program with reference ops (a naive,
// independent interpreter of the IR — the oracle for every primitive).
#pragma once
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"
#include "reference/reference.h"

namespace tandem {

ref::Array to_ref(const Tensor& t);
Tensor from_ref(const ref::Array& a);

// Evaluates `program` with tandem::ref ops, each equation by its primitive's eval rule in
// the reference rule table (reference_rules.h). dot_general is computed exactly (f64) and
// then rounded to its output dtype, whatever precision the equation asks for: the reference
// is the true answer that every algorithm's error is measured against.
// one_member_axes: named axes bound as worlds of one member (a collective over any other
// name is bad input; reference_collectives.h evaluates collectives over real meshes).
std::vector<ref::Array> reference_eval(const Program& program, std::vector<ref::Array> inputs,
                                       const std::vector<std::string>& one_member_axes = {});

}  // namespace tandem
