// Primitive registry. Families register explicitly rather than through static initialisers,
// which a static library's linker may drop: the top layer (the CLI's main, the test mains)
// calls register_all_primitives() (engine/prims/register_all.h) once. A lookup in a registry
// nobody filled is an internal error naming that call, never an "unknown primitive".
#include "engine/ir/primitive.h"

#include <map>
#include <memory>

#include "engine/core/error.h"

namespace tandem {
namespace {
std::map<std::string, std::unique_ptr<Primitive>>& table() {
  static std::map<std::string, std::unique_ptr<Primitive>> t;
  return t;
}
void require_registered() {
  if (table().empty())
    throw Error(ErrorKind::internal, "the primitive registry is empty: register_all_primitives() was not called",
                "call tandem::register_all_primitives() (engine/prims/register_all.h) once from "
                "main(); tandem_add_test's mains (tandem_engine_test_main) do");
}
}  // namespace

void register_primitive(Primitive p) {
  auto& t = table();
  TANDEM_CHECK(!t.count(p.name), "primitive registered twice: ", p.name);
  std::string name = p.name;
  t[name] = std::make_unique<Primitive>(std::move(p));
}

Primitive& mutable_primitive(const std::string& name) {
  auto it = table().find(name);
  if (it != table().end()) return *it->second;
  require_registered();
  throw_bad_input(cat("unknown primitive '", name, "'"), "see `tandem list --primitives`");
}

const Primitive& primitive(const std::string& name) { return mutable_primitive(name); }

std::vector<std::string> primitive_names() {
  require_registered();
  std::vector<std::string> r;
  for (auto& [k, v] : table()) r.push_back(k);
  return r;
}

}  // namespace tandem
