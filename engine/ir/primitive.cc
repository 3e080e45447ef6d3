// Primitive registry. Families register explicitly (engine/prims/register_all.cc) rather
// than through static initialisers, which a static library's linker may drop.
#include "engine/ir/primitive.h"

#include <map>
#include <memory>

#include "engine/core/error.h"
#include "engine/prims/register_all.h"

namespace tandem {
namespace {
std::map<std::string, std::unique_ptr<Primitive>>& table() {
  static std::map<std::string, std::unique_ptr<Primitive>> t;
  return t;
}
void ensure_registered() {
  static bool once = [] { register_all_primitives(); return true; }();
  (void)once;
}
}  // namespace

void register_primitive(Primitive p) {
  auto& t = table();
  TANDEM_CHECK(!t.count(p.name), "primitive registered twice: ", p.name);
  std::string name = p.name;
  t[name] = std::make_unique<Primitive>(std::move(p));
}

Primitive& mutable_primitive(const std::string& name) {
  // Look before initialising: backends attach impls from inside register_all_primitives(),
  // when the families they extend are already in the table, and must not re-enter it.
  auto it = table().find(name);
  if (it != table().end()) return *it->second;
  ensure_registered();
  it = table().find(name);
  if (it == table().end())
    throw_bad_input(cat("unknown primitive '", name, "'"), "see `tandem list --primitives`");
  return *it->second;
}

const Primitive& primitive(const std::string& name) { return mutable_primitive(name); }

std::vector<std::string> primitive_names() {
  ensure_registered();
  std::vector<std::string> r;
  for (auto& [k, v] : table()) r.push_back(k);
  return r;
}

}  // namespace tandem
