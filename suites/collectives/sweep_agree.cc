// The sweep's agreement on its arguments and their validation (see sweep_agree.h).
#include "suites/collectives/sweep_agree.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/comm/validate.h"
#include "engine/core/error.h"
#include "suites/collectives/collectives_cases.h"
#include "suites/collectives/op_table.h"
#include "suites/collectives/sweep_format.h"

namespace tandem::coll {
namespace {

using comm::ReduceOp;

const Redop kRedops[] = {{"sum", ReduceOp::sum}, {"max", ReduceOp::max}, {"min", ReduceOp::min}};

}  // namespace

std::vector<std::string> sweep_redop_names() {
  std::vector<std::string> v;
  for (const Redop& r : kRedops) v.push_back(r.name);
  v.push_back("all");
  return v;
}

Validated validate_sweep(const SweepOptions& o, int world_size) {
  Validated v;
  const auto ts = parse_sweep_dtypes(o.dtype);
  if (!ts) throw_bad_input(cat("-d ", o.dtype, ": unknown dtype"), "one of float half bfloat16 double int32 all");
  v.dtypes = *ts;
  if (o.backend != "mpi" && o.backend != "nccl")
    throw_bad_input(cat("--backend ", o.backend, ": unknown"), "mpi (host buffers) or nccl (device buffers, one GPU per rank)");
  for (const Redop& r : kRedops)
    if (o.redop == r.name || o.redop == "all") v.redops.push_back(r);
  if (v.redops.empty()) throw_bad_input(cat("-o ", o.redop, ": unknown reduction op"), "one of sum max min all");
  if (o.min_bytes < 1 || o.max_bytes < o.min_bytes || o.factor <= 1) throw_bad_input("need 1 <= -b <= -e and -f > 1");
  if (o.iters < 1 || o.warmup < 0) throw_bad_input("need -n >= 1 and -w >= 0");
  if (o.time_reduce != "max" && o.time_reduce != "avg" && o.time_reduce != "min")
    throw_bad_input("--time-reduce must be max, avg or min");
  if (o.per_iter && o.json_out.empty())
    throw_bad_input("-I 1 records per-iteration times in the -J file", "add -J out.json (--percentiles prints p50/p99)");
  if (o.per_iter_skip > 0 && (!o.per_iter || o.per_iter_skip >= o.iters))
    throw_bad_input(cat("-K ", o.per_iter_skip, " skips leading iterations of -I 1's summary"), "give -I 1 and -K < -n");
  if (o.ops.empty()) throw_bad_input("--ops is empty", "e.g. --ops psum,all_gather (one of " + op_list(true) + ")");
  const bool all = std::count(o.ops.begin(), o.ops.end(), "all") > 0;
  if (all && o.ops.size() > 1) throw_bad_input("--ops all lists every op: give it alone", "e.g. --ops all");
  const std::vector<std::string> names = all ? op_names(true) : o.ops;
  for (const std::string& name : names) {
    const CollOp* op = find_op(name);
    if (!op || !op->sweepable()) throw_bad_input(cat("--ops ", name, ": not an op of the sweep"), "one of " + op_list(true));
    if (std::count(names.begin(), names.end(), name) > 1)
      throw_bad_input(cat("--ops lists ", name, " twice"), "list each op once, e.g. --ops psum,all_gather");
    std::string why;
    layout_groups(o.groups, world_size, name, &why);
    if (!why.empty()) throw_bad_input(why, all ? "use --groups all, or list the ops that fit in --ops"
                                              : "use --groups all, or leave this op out of --ops");
    v.ops.push_back(op);
  }
  return v;
}


std::string sweep_signature(const SweepOptions& o) {
  // When a new option changes which collectives run, or their sizes, add it here.
  const nlohmann::json sig = {{"min_bytes", o.min_bytes}, {"max_bytes", o.max_bytes}, {"factor", o.factor},
                              {"iters", o.iters},         {"warmup", o.warmup},       {"check", o.check},
                              {"dtype", o.dtype},         {"redop", o.redop},         {"ops", o.ops},
                              {"raw", o.raw},             {"inplace", o.inplace},     {"groups", o.groups},
                              {"interleave", o.interleave}, {"time_reduce", o.time_reduce},
                              {"backend", o.backend},     {"json", !o.json_out.empty()},
                              {"per_iter", o.per_iter},   {"per_iter_skip", o.per_iter_skip}};
  return sig.dump();
}

void agree_on_sweep(comm::Communicator& world, const SweepOptions& o, const std::function<void()>& check) {
  comm::agree(world, "tandem collectives", sweep_signature(o), check,
              "launch every rank with the same options (mpirun.sh NP collectives ... passes one command line to all)");
}

}  // namespace tandem::coll
