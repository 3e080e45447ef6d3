// The pieces program_check.h's cases share: the example arguments, the engine run of one
// program, an outcome of the fuzzer's check as a harness verdict, interleaved timing of two
// alternatives, and one CaseInstance builder per kind of case.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "suites/program_fuzz/fuzz_case.h"
#include "suites/program_fuzz/fuzz_driver.h"
#include "suites/program_fuzz/program_check.h"

namespace tandem::program_check {

// What every case of one program starts from: the program, its arguments and (for the
// differentiating cases) one cotangent per output: 1 for a scalar (a loss), seeded otherwise.
struct Setup {
  std::shared_ptr<const ImportedProgram> p;
  std::vector<Tensor> args;
  std::vector<Tensor> cotangents;
  uint64_t seed = 0;
};
Setup make_setup(std::shared_ptr<const ImportedProgram> p);

// A fuzz case of the program under a chain, with the setup's arguments.
fuzz::FuzzCase case_of(const Setup& s, fuzz::ChainKind kind);

// The engine running `p` on `device`, results back on the host.
std::vector<Tensor> execute(const Program& p, const std::vector<Tensor>& args, Device device);
std::vector<Tensor> on_device(const std::vector<Tensor>& host, Device device);

// The fuzzer's outcome as a verdict: agree passes, a disagreement fails, a refusal or an
// engine error is an error (tandem cannot check what was asked) naming `what` was checked.
// The correctness block carries the worst error over tolerance and the elements checked.
tandem::CaseResult result_of(const fuzz::CaseResult& r, const std::string& what);
nlohmann::json verdict_json(const fuzz::Verdict& v);

// Two alternatives timed in alternation (a, b, a, b, ...: the machine's load hits both
// alike), after one warm-up each: the minimum of each, and b's minimum over a's.
struct Interleaved {
  double a_min_s = 0, b_min_s = 0;
  double a_over_b = 0;  // > 1: b is faster
};
Interleaved time_interleaved(const std::function<void()>& a, const std::function<void()>& b, int rounds, Device device);

CaseInstance forward_instance(const Setup& s, Device d);
CaseInstance vjp_instance(const Setup& s, const std::string& policy, Device d);
CaseInstance vmap_instance(const Setup& s, Device d);
CaseInstance hoist_instance(const Setup& s, Device d);
CaseInstance dot_instance(const Setup& s, const std::string& precision, Device d);

// The program with every dot_general (sub-programs included) under `precision`.
Program with_dot_precision(const Program& p, const std::string& precision);
bool has_primitive(const Program& p, const std::string& name);

}  // namespace tandem::program_check
