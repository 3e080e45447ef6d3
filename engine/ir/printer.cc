// Program printer. Names are assigned a, b, ..., z, ba, bb, ... in order of appearance,
// as jaxprs print, with sub-programs named independently and indented.
#include "engine/ir/printer.h"

#include <sstream>
#include <unordered_map>

#include "engine/ir/primitive.h"

namespace tandem {
namespace {

std::string var_name(int64_t n) {
  std::string s;
  do { s.insert(s.begin(), char('a' + n % 26)); n /= 26; } while (n > 0);
  return s;
}

std::string literal_str(const Literal& l) {
  std::ostringstream os;
  os << l.value << ":" << dtype_name(l.dtype);
  return os.str();
}

class Printer {
 public:
  std::string print(const Program& p, int indent);

 private:
  std::string name(const Var& v) {
    auto it = names_.find(v->id);
    if (it != names_.end()) return it->second;
    return names_[v->id] = var_name(int64_t(names_.size()));
  }
  std::string atom(const Atom& a) { return a.is_literal() ? literal_str(*a.literal) : name(a.var); }
  std::string typed(const Var& v) { return name(v) + ":" + v->type.str(); }
  std::string param(const Param& p, int indent);
  std::unordered_map<int64_t, std::string> names_;
};

std::string Printer::param(const Param& p, int indent) {
  std::ostringstream os;
  std::visit([&](const auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
      os << "(";
      for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
      os << (v.size() == 1 ? ",)" : ")");
    } else if constexpr (std::is_same_v<T, DType>) {
      os << dtype_name(v);
    } else if constexpr (std::is_same_v<T, ProgramPtr>) {
      os << Printer().print(*v, indent + 2);
    } else if constexpr (std::is_same_v<T, bool>) {
      os << (v ? "True" : "False");
    } else {
      os << v;
    }
  }, p);
  return os.str();
}

std::string Printer::print(const Program& p, int indent) {
  std::string pad(size_t(indent), ' ');
  std::ostringstream os;
  os << "{ lambda ; ";
  for (size_t i = 0; i < p.in_vars.size(); ++i) os << (i ? " " : "") << typed(p.in_vars[i]);
  os << ". let\n";
  for (const Eqn& e : p.eqns) {
    os << pad << "    ";
    for (size_t i = 0; i < e.out.size(); ++i) os << (i ? " " : "") << typed(e.out[i]);
    os << " = " << e.prim->name;
    if (!e.params.items().empty()) {
      os << "[";
      bool first = true;
      for (auto& [k, v] : e.params.items()) {
        os << (first ? "" : " ") << k << "=" << param(v, indent + 4);
        first = false;
      }
      os << "]";
    }
    for (const Atom& a : e.in) os << " " << atom(a);
    os << "\n";
  }
  os << pad << "  in (";
  for (size_t i = 0; i < p.out_vars.size(); ++i) os << (i ? ", " : "") << atom(p.out_vars[i]);
  os << ") }";
  return os.str();
}
}  // namespace

std::string to_string(const Program& program) { return Printer().print(program, 0); }

}  // namespace tandem
