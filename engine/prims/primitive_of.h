// primitive_of: a Primitive from the fields most registrations set, so a registration is one
// call (a designated initializer would leave the rest to -Wextra's missing-initializer warning).
#pragma once
#include "engine/ir/primitive.h"

namespace tandem {

inline Primitive primitive_of(std::string name, unsigned traits, std::vector<std::string> params, ShapeRule shape = {},
                              Impl cpu = {}) {
  Primitive p;
  p.name = std::move(name);
  p.traits = traits;
  p.params = std::move(params);
  p.shape = std::move(shape);
  p.cpu = std::move(cpu);
  return p;
}

}  // namespace tandem
