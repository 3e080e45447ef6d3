// Reference runs computed once per program (fuzz_reference_cache.h).
#include "suites/program_fuzz/fuzz_reference_cache.h"

#include <algorithm>
#include <atomic>
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

ReferenceCache::~ReferenceCache() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    plan_.clear();
  }
  for (std::thread& t : workers_) t.join();
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
  if (workers_.empty() && !plan_.empty())
    for (unsigned i = 1; i < std::max(2u, std::thread::hardware_concurrency()); ++i) workers_.emplace_back([this] { work(); });
}

bool ReferenceCache::ready_or_claim(std::unique_lock<std::mutex>& lock, const std::string& key) {
  start();
  stored_.wait(lock, [&] { return !running_.count(key); });
  if (runs_.count(key)) return true;
  std::erase_if(plan_, [&](const Planned& p) { return p.key == key; });
  running_.insert(key);
  return false;
}

void ReferenceCache::store(std::string key, Runs r) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_.erase(key);
  runs_.emplace(std::move(key), std::move(r));
  stored_.notify_all();
}

void ReferenceCache::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!plan_.empty()) {
    Planned p = std::move(plan_.front());
    plan_.pop_front();
    if (runs_.count(p.key) || running_.count(p.key)) continue;
    running_.insert(p.key);
    lock.unlock();
    store(p.key, run(p.c, p.v, p.seed));
    lock.lock();
  }
}

void ReferenceCache::plan(const FuzzCase& c, const std::vector<std::pair<RefVariant, uint64_t>>& wanted) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [v, seed] : wanted)
    if (std::string key = reference_key(c, v, seed);
        !key.empty() && std::none_of(plan_.begin(), plan_.end(), [&](const Planned& p) { return p.key == key; }))
      plan_.push_back({std::move(key), c, v, seed});
}

std::vector<ref::Array> ReferenceCache::results(const FuzzCase& c, RefVariant v, uint64_t perturb_seed,
                                                bool* nonfinite_forward) {
  const std::string key = reference_key(c, v, perturb_seed);
  if (key.empty()) return reference_results(c, v, perturb_seed, nonfinite_forward);
  std::unique_lock<std::mutex> lock(mutex_);
  if (!ready_or_claim(lock, key)) {
    lock.unlock();
    store(key, run(c, v, perturb_seed));
    lock.lock();
  }
  const Runs& r = runs_.at(key);
  if (r.error) std::rethrow_exception(r.error);
  if (nonfinite_forward) *nonfinite_forward = r.nonfinite_forward;
  return r.results;
}

void ReferenceCache::compute(const FuzzCase& c, const std::vector<std::pair<RefVariant, uint64_t>>& wanted) {
  std::vector<std::pair<std::string, std::pair<RefVariant, uint64_t>>> missing;
  std::unique_lock<std::mutex> lock(mutex_);
  start();
  for (const auto& w : wanted) {  // those a planned-run thread computes now are waited for by results()
    std::string key = reference_key(c, w.first, w.second);
    const bool listed = std::any_of(missing.begin(), missing.end(), [&](const auto& m) { return m.first == key; });
    if (!key.empty() && !listed && !runs_.count(key) && !running_.count(key)) {
      std::erase_if(plan_, [&](const Planned& p) { return p.key == key; });
      running_.insert(key);
      missing.emplace_back(std::move(key), w);
    }
  }
  lock.unlock();
  std::atomic<size_t> next{0};  // at most one thread per core: a run's big dots thread themselves
  auto each = [&] {
    for (size_t i; (i = next++) < missing.size();) store(missing[i].first, run(c, missing[i].second.first, missing[i].second.second));
  };
  std::vector<std::thread> threads(std::min<size_t>(missing.size(), std::max(1u, std::thread::hardware_concurrency())));
  for (std::thread& t : threads) t = std::thread(each);
  for (std::thread& t : threads) t.join();
  lock.lock();
  for (const auto& m : missing)
    if (runs_.at(m.first).error) std::rethrow_exception(runs_.at(m.first).error);
}

}  // namespace tandem::fuzz
