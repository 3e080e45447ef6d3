// IR helpers: variable ids and typed param access with clear errors.
#include "engine/ir/ir.h"

#include <atomic>

#include "engine/core/error.h"

namespace tandem {

static std::atomic<int64_t> next_var_id{0};

Var new_var(AType type) {
  return std::make_shared<const VarNode>(VarNode{std::move(type), next_var_id++});
}

Var var_with_id(AType type, int64_t id) {
  int64_t next = next_var_id.load();
  while (next <= id && !next_var_id.compare_exchange_weak(next, id + 1)) {
  }
  return std::make_shared<const VarNode>(VarNode{std::move(type), id});
}

const Param& Params::at(const std::string& key) const {
  auto it = map_.find(key);
  if (it == map_.end()) throw_bad_input(cat("missing parameter '", key, "'"));
  return it->second;
}

template <class T>
static const T& typed(const Param& p, const std::string& key, const char* want) {
  if (const T* v = std::get_if<T>(&p)) return *v;
  throw_bad_input(cat("parameter '", key, "' is not ", want));
}

int64_t Params::get_int(const std::string& key) const {
  return typed<int64_t>(at(key), key, "an integer");
}
int64_t Params::get_int(const std::string& key, int64_t fallback) const {
  return has(key) ? get_int(key) : fallback;
}
double Params::get_double(const std::string& key) const {
  const Param& p = at(key);
  if (auto* i = std::get_if<int64_t>(&p)) return double(*i);
  return typed<double>(p, key, "a number");
}
bool Params::get_bool(const std::string& key, bool fallback) const {
  return has(key) ? typed<bool>(at(key), key, "a bool") : fallback;
}
std::string Params::get_string(const std::string& key, const std::string& fallback) const {
  return has(key) ? typed<std::string>(at(key), key, "a string") : fallback;
}
std::vector<int64_t> Params::get_ints(const std::string& key) const {
  return typed<std::vector<int64_t>>(at(key), key, "a list of integers");
}
DType Params::get_dtype(const std::string& key) const {
  return typed<DType>(at(key), key, "a dtype");
}
std::optional<DType> Params::get_optional_dtype(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return get_dtype(key);
}
const ProgramPtr& Params::get_program(const std::string& key) const {
  return typed<ProgramPtr>(at(key), key, "a program");
}

std::vector<AType> Program::in_types() const {
  std::vector<AType> r;
  for (auto& v : in_vars) r.push_back(v->type);
  return r;
}
std::vector<AType> Program::out_types() const {
  std::vector<AType> r;
  for (auto& a : out_vars) r.push_back(a.type());
  return r;
}

}  // namespace tandem
