// Reference runs computed once per program (fuzz_reference_cache.h).
#include "suites/program_fuzz/fuzz_reference_cache.h"

#include <algorithm>
#include <memory>
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

}  // namespace

std::string reference_key(const FuzzCase& c, RefVariant v, uint64_t perturb_seed) {
  if (vmaps(c.chain.kind)) return "";
  const Program seen = by_rounding_model(v == RefVariant::wide ? widen(c.program) : c.program);
  static const char* const kVariant[] = {"wide", "own", "perturbed", "scaled"};  // RefVariant's order
  return cat(kVariant[int(v)], " seed ", perturb_seed, differentiates(c.chain.kind) ? " vjp\n" : " forward\n", to_string(seen));
}

ReferenceCache::~ReferenceCache() {
  std::unique_lock<std::mutex> lock(mutex_);
  plan_.clear();
  std::vector<std::thread> threads = std::move(workers_);
  lock.unlock();
  for (std::thread& t : threads) t.join();
}

ReferenceCache::Runs ReferenceCache::run(const FuzzCase& c, RefVariant v, uint64_t perturb_seed) {
  Runs r;
  const std::vector<ref::Array>* forward = nullptr;
  if (differentiates(c.chain.kind) && (v == RefVariant::wide || v == RefVariant::own)) {
    FuzzCase plain = c;
    plain.chain.kind = ChainKind::plain;
    plain.cotangents.clear();
    const std::string key = reference_key(plain, v, 0);
    std::lock_guard<std::mutex> lock(mutex_);  // a stored run never changes: read after unlocking
    if (auto it = runs_.find(key); it != runs_.end() && !it->second.error) {
      forward = &it->second.results;
      r.nonfinite_forward = it->second.nonfinite_forward;  // the own walk is what sets it
    }
  }
  try {
    bool nonfinite = false;
    r.results = reference_results(c, v, perturb_seed, &nonfinite, forward);
    r.nonfinite_forward |= nonfinite;
  } catch (...) {
    r.error = std::current_exception();
  }
  return r;
}

void ReferenceCache::start() {
  for (; active_ + 1 < std::max(2u, std::thread::hardware_concurrency()) && active_ < plan_.size(); ++active_)
    workers_.emplace_back([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (!plan_.empty()) run_first(lock);
      --active_;
    });
}

void ReferenceCache::run_first(std::unique_lock<std::mutex>& lock) {
  Planned p = std::move(plan_.front());
  plan_.pop_front();
  if (runs_.count(p.key) || running_.count(p.key)) return;
  running_.insert(p.key);
  lock.unlock();
  Runs r = run(p.c, p.v, p.seed);
  lock.lock();
  running_.erase(p.key);
  runs_.emplace(p.key, std::move(r));
  stored_.notify_all();
}

void ReferenceCache::plan(const FuzzCase& c, const std::vector<std::pair<RefVariant, uint64_t>>& wanted, bool first) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < wanted.size(); ++i) {
    const auto& [v, seed] = first ? wanted[wanted.size() - 1 - i] : wanted[i];  // put first in wanted's order
    std::string key = reference_key(c, v, seed);
    if (key.empty() || runs_.count(key) || running_.count(key)) continue;
    const auto at = std::find_if(plan_.begin(), plan_.end(), [&](const Planned& p) { return p.key == key; });
    if (first && at != plan_.end()) plan_.erase(at);
    if (first) plan_.push_front({std::move(key), c, v, seed});
    else if (at == plan_.end()) plan_.push_back({std::move(key), c, v, seed});
  }
  if (first) start();
}

std::vector<ref::Array> ReferenceCache::results(const FuzzCase& c, RefVariant v, uint64_t perturb_seed,
                                                bool* nonfinite_forward) {
  const std::string key = reference_key(c, v, perturb_seed);
  if (key.empty()) return reference_results(c, v, perturb_seed, nonfinite_forward);
  std::unique_lock<std::mutex> lock(mutex_);
  start();
  while (!runs_.count(key)) {  // computed here, or waited for by computing the plan's next runs
    if (!running_.count(key)) plan_.push_front({key, c, v, perturb_seed});
    if (!plan_.empty()) run_first(lock);
    else stored_.wait(lock);
  }
  const Runs& r = runs_.at(key);
  if (r.error) std::rethrow_exception(r.error);
  if (nonfinite_forward) *nonfinite_forward = r.nonfinite_forward;
  return r.results;
}

}  // namespace tandem::fuzz
