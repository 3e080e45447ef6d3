// The vmap pass: checks and normalizes the axes (JAX's error cases), then hands the program
// to the batching interpreter (engine/prims/batch_rules.h) with each output's destination.
#include "engine/passes/vmap.h"

#include <csignal>
#include <cstring>

#include "engine/core/check.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/ir/executor.h"
#include "engine/passes/pass_typecheck.h"
#include "engine/prims/batch_rules.h"

namespace tandem {
namespace {

std::string axis_label(const std::string& axis_name) {
  return axis_name.empty() ? std::string("vmap") : cat("vmap (axis_name '", axis_name, "')");
}

// An axis of a batched value of rank `rank` (the per-example rank + 1), negative from the end.
int checked_axis(int64_t axis, int rank, const std::string& what, const std::string& label) {
  if (axis < -rank || axis >= rank)
    throw_bad_input(cat(label, ": ", what, " is ", axis, ", out of range for a batched value of rank ", rank),
                    cat("an axis lies in [", -rank, ", ", rank - 1, "]; pass nullopt (None) for not mapped"));
  return int(axis < 0 ? axis + rank : axis);
}

std::vector<VmapAxis> filled(std::vector<VmapAxis> axes, size_t n, const char* which, const std::string& label) {
  if (axes.empty()) return std::vector<VmapAxis>(n, 0);
  if (axes.size() != n)
    throw_bad_input(cat(label, ": ", axes.size(), " ", which, " for a program with ", n, " ",
                        which[0] == 'i' ? "inputs" : "outputs"),
                    cat("give one ", which, " entry per ", which[0] == 'i' ? "input" : "output",
                        " (nullopt for not mapped), or none for 0 everywhere"));
  return axes;
}

// Fault sticky_vmap_axis_size_one: as a kernel's illegal address on CUDA, the case that hits it
// fails and leaves the context broken, and every later call of the process fails too (as
// CUDA's do), until a fresh process: the case workers' replacement is what contains it.
void plant_sticky_error(bool hit_now) {
  if (const std::string* broken = check::device_context_broken())
    throw Error(ErrorKind::internal, cat("device call failed: the context is broken since an earlier case (", *broken, ")"));
  if (!hit_now) return;
  check::note_device_context_broken("cudaErrorIllegalAddress (planted: sticky_vmap_axis_size_one)");
  throw Error(ErrorKind::internal, "device call failed: an illegal memory access was encountered (planted)");
}
}  // namespace

Program vmap(const Program& p, std::vector<VmapAxis> in_axes, std::vector<VmapAxis> out_axes,
             int64_t axis_size, const std::string& axis_name) {
  std::string label = axis_label(axis_name);
  in_axes = filled(std::move(in_axes), p.in_vars.size(), "in_axes", label);
  out_axes = filled(std::move(out_axes), p.out_vars.size(), "out_axes", label);
  if (axis_size < 0) throw_bad_input(cat(label, ": axis_size ", axis_size, " is negative"));
  std::vector<BatchAxis> ins;
  for (size_t i = 0; i < in_axes.size(); ++i)
    ins.push_back(in_axes[i] ? BatchAxis(checked_axis(*in_axes[i], p.in_vars[i]->type.rank() + 1,
                                                      cat("in_axes[", i, "]"), label))
                             : std::nullopt);
  std::vector<OutDest> dests;
  for (size_t j = 0; j < out_axes.size(); ++j)
    dests.push_back(out_axes[j] ? OutDest::at_axis(checked_axis(*out_axes[j], p.out_vars[j].type().rank() + 1,
                                                                cat("out_axes[", j, "]"), label))
                                : OutDest::not_mapped());
  // fault: the process dies as a null write would (raise: a real null write is undefined behaviour)
  if (axis_size == 1 && fault_on(Fault::crash_vmap_axis_size_one)) std::raise(SIGSEGV);
  if (fault_on(Fault::sticky_vmap_axis_size_one)) plant_sticky_error(axis_size == 1);
  VmapAxisNameScope scope(axis_name);  // collectives naming it become array ops
  Program out = batch_program(p, ins, dests, axis_size, label.c_str()).program;
  typecheck_after_pass(out, "vmap");
  return out;
}

int64_t vmap_axis_size(const Program& p, const std::vector<VmapAxis>& in_axes_given,
                       const std::vector<AType>& args, std::optional<int64_t> axis_size) {
  std::string label = axis_label("");
  std::vector<VmapAxis> in_axes = filled(in_axes_given, p.in_vars.size(), "in_axes", label);
  if (args.size() != p.in_vars.size())
    throw_bad_input(cat(label, ": ", args.size(), " arguments for a program with ", p.in_vars.size(), " inputs"));
  std::optional<int64_t> size = axis_size;
  std::string first;  // the argument the size was first read from, for the message
  if (axis_size) first = "axis_size";
  for (size_t i = 0; i < args.size(); ++i) {
    AType want = p.in_vars[i]->type;
    if (!in_axes[i]) {
      if (args[i] != want)
        throw_bad_input(cat(label, ": argument ", i, " is ", args[i].str(), " but is not mapped; the program takes ", want.str()),
                        "give it an in_axes entry if it carries the examples");
      continue;
    }
    int ax = checked_axis(*in_axes[i], args[i].rank(), cat("in_axes[", i, "]"), label);
    int64_t n = args[i].shape[size_t(ax)];
    AType per = args[i];
    per.shape.erase(per.shape.begin() + ax);
    if (per != want)
      throw_bad_input(cat(label, ": argument ", i, " is ", args[i].str(), "; without axis ", ax, " it is ",
                          per.str(), " but the program takes ", want.str()),
                      "in_axes[i] names the axis that carries the examples");
    if (!size) {
      size = n;
      first = cat("argument ", i, " (axis ", ax, ")");
    } else if (*size != n) {
      throw_bad_input(cat(label, ": inconsistent sizes for the mapped axis: ", first, " has ", *size,
                          ", argument ", i, " (axis ", ax, ") has ", n),
                      "every mapped argument must hold the same number of examples along its in_axes");
    }
  }
  if (!size)
    throw_bad_input(cat(label, ": no argument is mapped and no axis_size was given"),
                    "map at least one argument or pass axis_size");
  return *size;
}

std::vector<Tensor> run_vmap(const Program& p, const std::vector<VmapAxis>& in_axes,
                             const std::vector<VmapAxis>& out_axes, const std::vector<Tensor>& args, Device device) {
  std::vector<AType> types;
  for (const Tensor& t : args) types.push_back(t.type());
  Program v = vmap(p, in_axes, out_axes, vmap_axis_size(p, in_axes, types));
  return Executor(device).run(v, args);
}

namespace {
// x viewed as [outer, n, inner] around `axis`.
void split_at(const Shape& s, int axis, int64_t& outer, int64_t& inner) {
  outer = inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < s.size(); ++d) inner *= s[d];
}
}  // namespace

std::vector<Tensor> unstack(const Tensor& x, int64_t axis) {
  Tensor h = x.to(Device::cpu());
  int a = normalize_axis(axis, h.rank(), "unstack");
  int64_t outer, inner, n = h.shape()[size_t(a)];
  split_at(h.shape(), a, outer, inner);
  Shape s = h.shape();
  s.erase(s.begin() + a);
  size_t es = dtype_size(h.dtype());
  std::vector<Tensor> r;
  for (int64_t i = 0; i < n; ++i) {
    Tensor t = Tensor::empty(s, h.dtype());
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(static_cast<char*>(t.raw()) + size_t(o * inner) * es,
                  static_cast<const char*>(h.raw()) + size_t((o * n + i) * inner) * es, size_t(inner) * es);
    r.push_back(t);
  }
  return r;
}

Tensor stack(const std::vector<Tensor>& examples, int64_t axis) {
  if (examples.empty()) throw_bad_input("stack of no examples", "stack at least one tensor");
  Shape s = examples[0].shape();
  int a = normalize_axis(axis, int(s.size()) + 1, "stack");
  int64_t outer, inner, n = int64_t(examples.size());
  s.insert(s.begin() + a, n);
  split_at(s, a, outer, inner);
  Tensor r = Tensor::empty(s, examples[0].dtype());
  size_t es = dtype_size(r.dtype());
  for (int64_t i = 0; i < n; ++i) {
    Tensor h = examples[size_t(i)].to(Device::cpu());
    if (h.type() != examples[0].type())
      throw_bad_input(cat("stack: example ", i, " is ", h.type().str(), ", example 0 is ", examples[0].type().str()));
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(static_cast<char*>(r.raw()) + size_t((o * n + i) * inner) * es,
                  static_cast<const char*>(h.raw()) + size_t(o * inner) * es, size_t(inner) * es);
  }
  return r;
}

}  // namespace tandem
