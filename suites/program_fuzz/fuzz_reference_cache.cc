// Reference runs computed once per program (fuzz_reference_cache.h).
#include "suites/program_fuzz/fuzz_reference_cache.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <thread>
#include <utility>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "engine/ir/printer.h"
#include "suites/program_fuzz/fuzz_rounding.h"

namespace tandem::fuzz {
namespace {

// p with every dot's precision (sub-programs too) replaced by the rounding model own_eval
// applies to it, which is all the reference reads of it but whether it is an ANY_F8 preset (the
// four round their operands to the formats the lhs/rhs_f8_format params name).
Program by_rounding_model(const Program& p) {
  Program r = p;
  for (Eqn& e : r.eqns) {
    if (e.prim->name == "dot_general")
      e.params.set("precision", cat(e.params.get_string("precision", "DEFAULT").find("F8") == std::string::npos ? "" : "f8 ",
                                    dot_rounding_model(e)));
    std::vector<std::pair<std::string, ProgramPtr>> bodies;  // rewritten after the walk over params
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value))
        bodies.emplace_back(key, std::make_shared<const Program>(by_rounding_model(**sub)));
    for (auto& [key, body] : bodies) e.params.set(key, body);
  }
  return r;
}

const char* variant_name(RefVariant v) {
  switch (v) {
    case RefVariant::wide: return "wide";
    case RefVariant::own: return "own";
    case RefVariant::perturbed: return "perturbed";
    case RefVariant::scaled: return "scaled";
  }
  return "?";
}

}  // namespace

std::string reference_key(const FuzzCase& c, RefVariant v, uint64_t perturb_seed) {
  if (vmaps(c.chain.kind)) return "";
  const Program seen = by_rounding_model(v == RefVariant::wide ? widen(c.program) : c.program);
  return cat(variant_name(v), " seed ", perturb_seed, differentiates(c.chain.kind) ? " vjp\n" : " forward\n", to_string(seen));
}

ReferenceCache::Runs ReferenceCache::run(const FuzzCase& c, RefVariant v, uint64_t perturb_seed) const {
  Runs r;
  const std::vector<ref::Array>* forward = nullptr;
  if (differentiates(c.chain.kind) && (v == RefVariant::wide || v == RefVariant::own)) {
    FuzzCase plain = c;
    plain.chain.kind = ChainKind::plain;
    plain.cotangents.clear();
    if (auto it = runs_.find(reference_key(plain, v, 0)); it != runs_.end()) {
      forward = &it->second.results;
      r.nonfinite_forward = it->second.nonfinite_forward;  // the own walk is what sets it
    }
  }
  bool nonfinite = false;
  r.results = reference_results(c, v, perturb_seed, &nonfinite, forward);
  r.nonfinite_forward |= nonfinite;
  return r;
}

std::vector<ref::Array> ReferenceCache::results(const FuzzCase& c, RefVariant v, uint64_t perturb_seed,
                                                bool* nonfinite_forward) {
  const std::string key = reference_key(c, v, perturb_seed);
  if (key.empty()) return reference_results(c, v, perturb_seed, nonfinite_forward);
  auto it = runs_.find(key);
  if (it == runs_.end()) it = runs_.emplace(key, run(c, v, perturb_seed)).first;
  if (nonfinite_forward) *nonfinite_forward = it->second.nonfinite_forward;
  return it->second.results;
}

void ReferenceCache::compute(const FuzzCase& c, const std::vector<std::pair<RefVariant, uint64_t>>& wanted) {
  std::vector<std::pair<std::string, std::pair<RefVariant, uint64_t>>> missing;
  for (const auto& w : wanted) {
    std::string key = reference_key(c, w.first, w.second);
    const bool listed = std::any_of(missing.begin(), missing.end(), [&](const auto& m) { return m.first == key; });
    if (!key.empty() && !listed && !runs_.count(key)) missing.emplace_back(std::move(key), w);
  }
  if (missing.size() < 2) return;  // results() computes a lone run on this thread
  std::vector<Runs> done(missing.size());
  std::vector<std::exception_ptr> errors(missing.size());
  std::atomic<size_t> next{0};  // at most one thread per core: a run's big dots thread themselves
  std::vector<std::thread> threads(std::min<size_t>(missing.size(), std::max(1u, std::thread::hardware_concurrency())));
  auto work = [&] {
    for (size_t i; (i = next++) < missing.size();) try {
        done[i] = run(c, missing[i].second.first, missing[i].second.second);
      } catch (...) { errors[i] = std::current_exception(); }
  };
  for (std::thread& t : threads) t = std::thread(work);
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < missing.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    runs_.emplace(missing[i].first, std::move(done[i]));
  }
}

}  // namespace tandem::fuzz
