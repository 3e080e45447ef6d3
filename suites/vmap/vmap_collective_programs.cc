// The collective programs of the vmap suite: each output exercises one collective (untiled
// and tiled, a full and a partial permutation), mixed with elementwise work so the batch
// dimension meets ordinary rules too.
#include "suites/vmap/vmap_collective_programs.h"

#include "engine/ir/builder.h"
#include "engine/prims/collective_prims.h"

namespace tandem::vmap_suite {
namespace {
using V = std::vector<Value>;
constexpr const char* kAxis = "batch";

CollectiveProgram make(std::string name, std::function<Shape(int64_t)> shape,
                       std::function<V(Builder&, Value, int64_t)> fn, bool differentiable = true) {
  return {name, [shape, fn](int64_t n) {
            return trace({AType{shape(n), DType::f32}}, [&](Builder& b, const V& in) { return fn(b, in[0], n); });
          }, differentiable};
}
Value as_f32(Value i) { return convert_element_type(i, DType::f32); }
}  // namespace

const std::vector<CollectiveProgram>& collective_programs() {
  static const std::vector<CollectiveProgram> programs = {
      make("psum_pmean", [](int64_t) { return Shape{4, 3}; },
           [](Builder&, Value x, int64_t) { return V{psum(x, kAxis), x * pmean(x, kAxis)}; }),
      make("pmax_pmin", [](int64_t) { return Shape{4, 3}; },
           [](Builder&, Value x, int64_t) { return V{pmax(x, kAxis), x - pmin(x, kAxis)}; }, false),
      make("all_gather", [](int64_t) { return Shape{4, 3}; },
           [](Builder&, Value x, int64_t n) {
             return V{all_gather(x, kAxis, n, 1), all_gather(x * x, kAxis, n, -1, true)};
           }),
      make("psum_scatter", [](int64_t n) { return Shape{n, 2 * n}; },
           [](Builder&, Value x, int64_t n) {
             return V{psum_scatter(x, kAxis, n, 0), psum_scatter(x, kAxis, n, 1, true)};
           }),
      make("all_to_all", [](int64_t n) { return Shape{n, 2 * n}; },
           [](Builder&, Value x, int64_t n) {
             return V{all_to_all(x, kAxis, n, 0, 1), all_to_all(x, kAxis, n, 1, 0, true)};
           }),
      make("ppermute", [](int64_t) { return Shape{4, 3}; },
           [](Builder&, Value x, int64_t n) {
             std::vector<std::pair<int, int>> shift;
             for (int i = 0; i < n; ++i) shift.push_back({i, int((i + 1) % n)});
             return V{ppermute(x, kAxis, shift), ppermute(x * 2.0, kAxis, {{0, int(n - 1)}})};
           }),
      // Operands the same for every example (unmapped): the axis rules' other branch (psum is
      // n * c, all_gather broadcasts, ...).
      make("unmapped_operands", [](int64_t n) { return Shape{n, 2 * n}; },
           [](Builder& b, Value x, int64_t n) {
             Value c = iota(b, DType::f32, {n, 2 * n}, 1) * 0.5 + 1.0;
             return V{x + psum(c, kAxis), x * pmean(c, kAxis), x + pmax(c, kAxis) - pmin(c, kAxis),
                      all_gather(c, kAxis, n, 1), all_to_all(c * 2.0, kAxis, n, 1, 0, true),
                      psum_scatter(c, kAxis, n, 0), x + ppermute(c, kAxis, {{0, int(n - 1)}})};
           }, false),  // pmax / pmin inside
      // Every valid axis of the axis-taking collectives: all_gather's in both forms (JAX
      // canonicalizes it), psum_scatter's and all_to_all's non-negative only (JAX binds them
      // as given; negative ones are refused: vmap/refuses/).
      make("all_gather_axes", [](int64_t) { return Shape{4, 3}; },
           [](Builder&, Value x, int64_t n) {
             V out;
             for (int64_t a = -3; a <= 2; ++a) out.push_back(all_gather(x, kAxis, n, a));
             for (int64_t a = -2; a <= 1; ++a) out.push_back(all_gather(x * 2.0, kAxis, n, a, true));
             return out;
           }),
      make("psum_scatter_axes", [](int64_t n) { return Shape{n, n, 2 * n}; },
           [](Builder&, Value x, int64_t n) {
             V out;
             for (int64_t d = 0; d <= 1; ++d) out.push_back(psum_scatter(x, kAxis, n, d));
             for (int64_t d = 0; d <= 2; ++d) out.push_back(psum_scatter(x * 2.0, kAxis, n, d, true));
             return out;
           }),
      make("all_to_all_axes", [](int64_t n) { return Shape{n, n, 2 * n}; },
           [](Builder&, Value x, int64_t n) {
             V out;
             for (int64_t s = 0; s <= 1; ++s)
               for (int64_t c = 0; c <= 2; ++c) out.push_back(all_to_all(x, kAxis, n, s, c));
             for (int64_t s = 0; s <= 2; ++s)
               for (int64_t c = 0; c <= 2; ++c) out.push_back(all_to_all(x * 2.0, kAxis, n, s, c, true));
             return out;
           }),
      // The unmapped (None) operand first, the mapped one second, into every collective.
      {"none_first", [](int64_t n) {
         return trace({AType{{n, 2 * n}, DType::f32}, AType{{n, 2 * n}, DType::f32}}, [n](Builder&, const V& in) {
           Value c = in[0], x = in[1];
           return V{psum(c, kAxis) * x, pmean(c * x, kAxis), all_gather(c, kAxis, n, -1) , all_gather(c * x, kAxis, n, 0, true),
                    psum_scatter(c + x, kAxis, n, 0), all_to_all(c * x, kAxis, n, 0, 1), ppermute(c - x, kAxis, {{0, int(n - 1)}})};
         });
       }, true, 1},
      make("axis_index", [](int64_t) { return Shape{3}; },
           [](Builder& b, Value x, int64_t) {
             Value i = as_f32(axis_index(b, kAxis));
             return V{x * i + i};
           }),
  };
  return programs;
}

Program two_axis_program(const std::string& outer, int64_t n_outer, const std::string& inner, int64_t n_inner) {
  std::string both = outer + "," + inner;
  return trace({AType{{2, 3}, DType::f32}}, [&](Builder& b, const V& in) {
    Value x = in[0];
    Value io = as_f32(axis_index(b, outer)), ii = as_f32(axis_index(b, inner));
    Value g = all_gather(x, outer, n_outer, 0);  // [n_outer, 2, 3]
    return V{psum(x, inner),
             psum_scatter(g * (ii + 1.0), outer, n_outer, 0),
             all_to_all(g * (io + 1.0), outer, n_outer, 0, 1),
             psum(x * io, both),
             pmean(x, inner + "," + outer),
             pmax(x, outer) + ii,
             all_gather(x, outer, n_outer, 0),
             all_gather(x + io, inner, n_inner, 1, true),
             ppermute(x + ii, outer, {{0, int(n_outer - 1)}}),
             psum_scatter(all_gather(x, inner, n_inner, 0), inner, n_inner, 0)};
  });
}

}  // namespace tandem::vmap_suite
