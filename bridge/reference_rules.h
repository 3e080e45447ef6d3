// The reference's rule table: for every engine primitive, keyed by its name, how the
// independent reference evaluates it (`eval`: tandem::ref ops on ref::Arrays) and how the
// reference's store-everything reverse mode records it (`tape`: ref::Tape ops). The two IR
// interpreters (reference_eval in reference_bridge.h, reference_vjp in reference_vjp.h) are
// loops over this table; the table is the bridge, so reference/ never includes engine/.
// Unary and binary elementwise primitives (Trait kElementwiseUnary / kElementwiseBinary)
// get their rows from their trait: ref::unary / ref::binary under the same name.
#pragma once
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/ir/ir.h"
#include "engine/ir/primitive.h"
#include "reference/grad_tape.h"
#include "reference/reference.h"

namespace tandem {

// What a rule may need beyond its operands: a way to run a sub-program (scan, checkpoint)
// with the same interpreter, and for tape rules the tape.
// one_member_axes: named axes bound as worlds of one member, for collectives evaluated in
// one process (the mesh interpreter, reference_collectives.h, evaluates every member).
struct RefEvalContext {
  std::function<std::vector<ref::Array>(const Program&, std::vector<ref::Array>)> run_program;  // takes its inputs
  std::vector<std::string> one_member_axes;
};
struct RefTapeContext {
  ref::Tape& tape;
  std::function<std::vector<ref::Tape::Id>(const Program&, const std::vector<ref::Tape::Id>&)> run_program;
};

using RefEvalRule = std::function<std::vector<ref::Array>(const Eqn&, const std::vector<ref::Array>&,
                                                          const RefEvalContext&)>;
using RefTapeRule = std::function<std::vector<ref::Tape::Id>(const Eqn&, const std::vector<ref::Tape::Id>&,
                                                             const RefTapeContext&)>;
struct ReferenceRule {
  RefEvalRule eval;
  RefTapeRule tape;
};

// Every primitive the reference has rules for (explicit rows plus the trait-derived ones).
const std::map<std::string, ReferenceRule>& reference_rules();
// The rule of `primitive`; an unsupported-error naming it when the reference has none.
const ReferenceRule& reference_rule(const std::string& primitive);

// Rows built in their own files: scan (reference_rules_scan.cc), the LSTM
// (reference_rules_lstm.cc).
ReferenceRule scan_reference_rule();
ReferenceRule while_reference_rule();  // reference_rules_scan.cc
ReferenceRule cond_reference_rule();   // reference_rules_scan.cc
ReferenceRule conv_reference_rule();   // reference_rules_conv.cc
ReferenceRule lstm_fwd_reference_rule();
ReferenceRule lstm_bwd_reference_rule();
// The collectives' rows (reference_rules_collectives.cc).
void add_collective_reference_rules(std::map<std::string, ReferenceRule>& table);
// not, and, or, xor, round, reduce_and/or/prod, argmax/argmin (reference_rules_logical.cc).
void add_logical_reference_rules(std::map<std::string, ReferenceRule>& table);

// The loop both interpreters share (as engine/ir/executor.cc's): binds the inputs, runs each
// equation through `step(eqn, operands) -> outputs`, returns the program's outputs.
// `literal` turns a literal into a value; `who` names the interpreter in errors. A value is
// moved, not copied, into its last reader (a scan body's weights are megabytes, read each step).
template <class V, class LiteralFn, class StepFn>
std::vector<V> walk_program(const Program& p, std::vector<V> inputs, LiteralFn literal, StepFn step, const char* who) {
  if (inputs.size() != p.in_vars.size())
    throw_bad_input(cat(who, ": program takes ", p.in_vars.size(), " inputs, got ", inputs.size()));
  std::unordered_map<int64_t, V> env;
  for (size_t i = 0; i < p.in_vars.size(); ++i) env.emplace(p.in_vars[i]->id, std::move(inputs[i]));
  std::unordered_map<int64_t, std::pair<size_t, size_t>> last;  // each variable's last read: (equation, operand)
  for (size_t i = 0; i <= p.eqns.size(); ++i) {  // the outputs read after every equation
    const std::vector<Atom>& in = i < p.eqns.size() ? p.eqns[i].in : p.out_vars;
    for (size_t j = 0; j < in.size(); ++j)
      if (!in[j].is_literal()) last[in[j].var->id] = {i, j};
  }
  auto operands = [&](const std::vector<Atom>& in, size_t i) {
    std::vector<V> r;
    for (size_t j = 0; j < in.size(); ++j) {
      if (in[j].is_literal()) r.push_back(literal(*in[j].literal));
      else if (last.at(in[j].var->id) == std::pair{i, j}) r.push_back(std::move(env.at(in[j].var->id)));
      else r.push_back(env.at(in[j].var->id));
    }
    return r;
  };
  for (size_t i = 0; i < p.eqns.size(); ++i) {
    const Eqn& e = p.eqns[i];
    std::vector<V> args = operands(e.in, i), outs;
    try {
      outs = step(e, std::move(args));
    } catch (const std::invalid_argument& err) {  // the reference's way of saying bad input
      throw_bad_input(cat(who, ", ", e.prim->name, ": ", err.what()));
    }
    TANDEM_CHECK(outs.size() == e.out.size(), who, ": ", e.prim->name, " gave ", outs.size(), " outputs");
    for (size_t k = 0; k < e.out.size(); ++k) env.insert_or_assign(e.out[k]->id, std::move(outs[k]));
  }
  return operands(p.out_vars, p.eqns.size());
}

}  // namespace tandem
