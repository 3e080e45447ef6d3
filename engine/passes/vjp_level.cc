// The checks and names every level of the vjp pass uses (vjp_level.h).
#include "engine/passes/vjp_level.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"

namespace tandem::vjp_detail {

std::vector<bool> floating_inputs(const Program& p) {
  std::vector<bool> w;
  for (const Var& v : p.in_vars) w.push_back(is_floating(v->type.dtype));
  return w;
}

void check_names(const Policy& pol, const Program& body) {
  if (pol.names.empty()) return;
  std::vector<std::string> have = names_in(body);
  for (const std::string& n : pol.names)
    if (std::find(have.begin(), have.end(), n) == have.end())
      throw_bad_input(cat("checkpoint policy ", pol.spec, " names '", n, "' but the body has ",
                          have.empty() ? std::string("no named values") : cat(have.size(), " named values, none so named")),
                      "name values with checkpoint_name(x, \"name\") inside the checkpointed body");
}

const char* level_name(Level l) { return l == Level::top ? "vjp" : l == Level::checkpoint ? "checkpoint" : "scan body"; }

}  // namespace tandem::vjp_detail
