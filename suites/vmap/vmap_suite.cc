// The vmap suite: every program of vmap_programs.h under every axis configuration
// (leading, last, middle, negative, the leading axis written negative, not-mapped mixes, the
// first input unmapped) at sizes 1 and odd in quick, large in nightly; per-example gradients
// (vmap of the joint vjp); the bad axes vmap must refuse; ragged batches against a loop over
// their items; and collectives over the vmapped axis.
#include "engine/ir/builder.h"
#include "suites/vmap/vmap_cases.h"

namespace tandem {
namespace {
using namespace vmap_suite;

void add_refusals(Registry& r) {
  auto p = std::make_shared<Program>(trace({{{3, 4}, DType::f32}, {{4}, DType::f32}}, [](Builder&, const std::vector<Value>& v) {
    return std::vector<Value>{dot(v[0], v[1]), v[1] * 2.0};
  }));
  std::optional<int64_t> none;
  r.add(refusal_case("in_axes_out_of_range", [p] { vmap(*p, {3, 0}, {0, 0}, 2); }, "in_axes[0] is 3"));
  r.add(refusal_case("out_axes_out_of_range", [p, none] { vmap(*p, {0, none}, {0, 2}, 2); }, "out_axes[1] is 2"));
  r.add(refusal_case("mapped_output_asked_unmapped", [p, none] { vmap(*p, {0, none}, {none, 0}, 2); },
                     "output 0 is mapped"));
  r.add(refusal_case("size_mismatch", [p] {
    vmap_axis_size(*p, {0, 0}, {{{2, 3, 4}, DType::f32}, {{5, 4}, DType::f32}});
  }, "inconsistent sizes"));
  // Negative axes JAX's lax refuses (iota, transpose, broadcast_in_dim) and axes out of range
  // in either form, for the axis-taking ops of vmap/axis_ops/ (which runs every valid one).
  auto traced = [](std::function<Value(Builder&, Value)> op) {  // op on an f32[2, 3, 4]
    return [op] { trace({AType{{2, 3, 4}, DType::f32}}, [&](Builder& b, const std::vector<Value>& v) { return std::vector<Value>{op(b, v[0])}; }); };
  };
  r.add(refusal_case("iota_negative_dimension", traced([](Builder& b, Value x) { return x * iota(b, DType::f32, {2, 3, 4}, -1); }),
                     "iota: dimension -1 is negative"));
  r.add(refusal_case("transpose_negative_permutation", traced([](Builder&, Value x) { return transpose(x, {-1, 0, 1}); }),
                     "not a permutation of 0..2"));
  r.add(refusal_case("broadcast_in_dim_negative_dimension",
                     traced([](Builder&, Value x) { return broadcast_in_dim(reduce_sum(x, {0}), {5, 3, 4}, {-2, -1}); }),
                     "strictly increasing"));
  r.add(refusal_case("concatenate_axis_out_of_range", traced([](Builder&, Value x) { return concatenate({x, x}, -4); }),
                     "concatenate: axis -4 is out of range for rank 3"));
  r.add(refusal_case("reduce_axis_out_of_range", traced([](Builder&, Value x) { return reduce_sum(x, {3}); }),
                     "reduce_sum: axis 3 is out of range for rank 3"));
  r.add(refusal_case("nothing_mapped_no_size", [p, none] {
    vmap_axis_size(*p, {none, none}, {{{3, 4}, DType::f32}, {{4}, DType::f32}});
  }, "no argument is mapped"));
}
}  // namespace

void register_vmap_suite(Registry& r) {
  for (const std::string& prog : program_names()) {
    Program p = make_program(prog).program;
    for (const AxisConfig& cfg : axis_configs(p))
      for (int64_t n : {1, 5}) r.add(batch_case(prog, cfg.name, n, false, "quick"));
    for (const char* cfg : {"lead", "mixed"}) r.add(batch_case(prog, cfg, 3, true, "quick"));
    r.add(batch_case(prog, "mixed", 64, false, "nightly"));
    r.add(batch_case(prog, "lead", 256, false, "nightly"));
    r.add(batch_case(prog, "lead", 64, true, "nightly"));
  }
  r.add(batch_case("mlp", "mixed", 1024, false, "nightly"));
  r.add(batch_case("attention", "middle", 1024, false, "nightly"));
  add_refusals(r);
  add_ragged_cases(r);
  add_collective_cases(r);
}

}  // namespace tandem
