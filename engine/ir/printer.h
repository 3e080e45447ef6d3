// Writes a Program as jaxpr-like text: { lambda ; a:f32[4,8]. let b:f32[4,8] = tanh a in (b) }
#pragma once
#include <string>

#include "engine/ir/ir.h"

namespace tandem {
std::string to_string(const Program& program);
}
