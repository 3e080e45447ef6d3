// The one table of collective ops (the nccl-tests way): per op its name, what it is, the case inputs' shape, the engine
// call and the reference model for the suite's cases, and — for the ops the sweep times — the sweep buffers for (bytes,
// group, dtype, redop, place), the closed-form expected value per output element, nccl-tests' bus-bandwidth factor, and
// the raw-library baseline on the same buffers keyed by the Communicator's backend. The cases (collectives_cases.cc),
// the sweep (sweep.cc), the CLI's help and validation (runners/cli/collectives_command.cc), the JAX oracle's dump
// (runners/cli/coll_dump_cases.cc, its cases built by op_dump.h) and every hint read this table and nothing else.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/comm/collectives.h"
#include "reference/collectives.h"

namespace tandem::coll {

// A case's inputs on every rank (collectives_cases.cc builds them from the layout).
struct CaseInputs {
  comm::Groups groups;
  int G = 1, pos = 0, n = 1;             // my group's size, my position, world size
  std::vector<ref::Array> xs;            // every rank's x
  std::vector<ref::RaggedArgs> ragged;   // every rank's ragged arguments
};

// One sweep row's request and what the op's sweep builder returns for it.
struct SweepArgs {
  int64_t bytes = 0;
  DType dtype = DType::f32;
  bool inplace = false;
  comm::ReduceOp redop = comm::ReduceOp::sum;  // read by ops that reduce
};
struct SweepRow {
  Tensor send, recv;
  int64_t bytes = 0;  // nccl-tests' S: the larger of the send and receive buffer of a rank
  int64_t count = 0;  // nccl-tests' count column, elements
  int root = -1;      // nccl-tests' root column (-1: no root)
  std::function<void()> run;                // the tandem call
  std::function<void()> raw;                // the raw library call on the same buffers (empty: none)
  std::function<double(int64_t)> expected;  // element i of recv on this rank
};

// One case of the JAX oracle's dump: what JAX is called with, on which inputs, and the
// engine call that must agree with it.
struct DumpCase {
  std::string op;         // the row whose group layouts apply: the op's own, or its "_tiled" twin
  std::string variant;    // the parameters in the file stem, e.g. axis1-tiled
  nlohmann::json params;  // what JAX takes besides the axis name
  std::string values;     // random | special | ties
  std::vector<DType> dtypes;
  bool per_group_shape = true;  // x is [G, G, 2G] (false: [8, 16])
  // The engine call (empty: inputs of its own, ragged_all_to_all's).
  std::function<Tensor(comm::Collectives&, const Tensor&, const CaseInputs&)> run;
};

struct CollOp {
  std::string name;     // JAX's name (psum, all_gather, …); the case and sweep key
  std::string summary;  // one line for --help
  bool reduces = false;         // elementwise reduction (psum pmax pmin pmean): JAX allows uneven groups
  bool takes_groups = true;     // false: ppermute and pshuffle act on the world
  bool shape_per_group = true;  // case input [G, 2G] (false: a fixed [2, 3])
  std::function<Tensor(comm::Collectives&, const Tensor&, const CaseInputs&)> engine{};
  std::function<ref::PerRank(const CaseInputs&)> reference{};
  // The sweep (all three set, or none: the op is not in the sweep).
  std::function<double(int G)> busfactor{};  // nccl-tests' PERFORMANCE.md factor
  std::function<SweepRow(comm::Collectives&, const comm::Groups&, const SweepArgs&)> sweep{};
  std::map<std::string, std::string> raw_call{};  // backend → the library call the baseline is
  bool in_place = false;                        // the sweep has an in-place form
  bool axis_grid = false;  // a row of the axis grid ("all_gather/axis:-3"): f32 cases only
  bool sweep_redop = false;                     // the sweep's -o (reduction op) applies
  // The JAX oracle's cases at world size n, JAX's op being this row's name (op_dump.h);
  // empty: the op is not in `tandem collectives-dump`.
  std::function<std::vector<DumpCase>(const CollOp& row, int n)> dump{};
  bool sweepable() const { return bool(sweep); }
};

const std::vector<CollOp>& coll_ops();
// The op named `name`, or nullptr.
const CollOp* find_op(const std::string& name);
// Names, in table order; only the sweep's when sweep_only.
std::vector<std::string> op_names(bool sweep_only);
// "psum all_gather …" for messages and help.
std::string op_list(bool sweep_only);

// The case inputs' values: rank (or group position) q, element i → a small integer.
inline double value(int q, int64_t i) { return double((7 * q + 3 * i) % 13) - 6; }

}  // namespace tandem::coll
