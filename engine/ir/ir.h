// The IR, modelled on the jaxpr: typed single-assignment variables, scalar literals,
// equations (primitive + inputs + outputs + params) and programs. Sub-programs (a scan
// body, a checkpoint body) are params of their equation.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/core/shape.h"

namespace tandem {

struct Primitive;
struct Program;

struct VarNode {
  AType type;
  int64_t id;
};
using Var = std::shared_ptr<const VarNode>;
Var new_var(AType type);
// A variable with a given id, for readers of programs written elsewhere (program_json_read.h):
// ids tie uses to definitions there. new_var's later ids stay above it, so a pass that adds
// variables to the program read never reuses one of its ids.
Var var_with_id(AType type, int64_t id);

struct Literal {
  double value = 0;
  DType dtype = DType::f32;
};

// An equation input: a variable or a scalar literal.
struct Atom {
  Var var;
  std::optional<Literal> literal;
  Atom() = default;
  Atom(Var v) : var(std::move(v)) {}
  Atom(Literal l) : literal(l) {}
  bool is_literal() const { return literal.has_value(); }
  AType type() const { return is_literal() ? AType{{}, literal->dtype} : var->type; }
};

using ProgramPtr = std::shared_ptr<const Program>;
using Param = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, DType, ProgramPtr>;

class Params {
 public:
  Params() = default;
  Params(std::initializer_list<std::pair<const std::string, Param>> init) : map_(init) {}
  void set(const std::string& key, Param v) { map_[key] = std::move(v); }
  bool has(const std::string& key) const { return map_.count(key) > 0; }
  // Typed getters: a missing or mistyped param is a bad-input error naming the key.
  int64_t get_int(const std::string& key) const;
  int64_t get_int(const std::string& key, int64_t fallback) const;
  double get_double(const std::string& key) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const std::string& key) const;
  DType get_dtype(const std::string& key) const;
  std::optional<DType> get_optional_dtype(const std::string& key) const;
  const ProgramPtr& get_program(const std::string& key) const;
  const std::map<std::string, Param>& items() const { return map_; }

 private:
  const Param& at(const std::string& key) const;
  std::map<std::string, Param> map_;
};

struct Eqn {
  const Primitive* prim = nullptr;
  std::vector<Atom> in;
  std::vector<Var> out;
  Params params;
};

struct Program {
  std::vector<Var> in_vars;
  std::vector<Eqn> eqns;
  std::vector<Atom> out_vars;
  std::vector<AType> in_types() const;
  std::vector<AType> out_types() const;
};

}  // namespace tandem
