// Several axis names at once (a device mesh: mesh_groups) and pgather, with JAX semantics
// over any Communicator: both reduce to groups and the ops already written once.
#include <algorithm>

#include "engine/comm/collectives_impl.h"
#include "engine/comm/validate.h"
#include "engine/core/error.h"

namespace tandem::comm {
using namespace detail;

Groups mesh_groups(const Mesh& m, const std::vector<std::string>& names, int world_size, const Groups& aig) {
  const std::string hint = "name one or more of the mesh's axes, each once, e.g. {\"x\", \"y\"}";
  int64_t total = 1;
  std::vector<int64_t> stride(m.axes.size(), 1);
  for (size_t i = m.axes.size(); i-- > 0;) {
    if (m.axes[i].second < 1) throw_bad_input(cat("mesh axis '", m.axes[i].first, "' has size ", m.axes[i].second));
    stride[i] = total;
    total *= m.axes[i].second;
  }
  if (total != world_size)
    throw_bad_input(cat("mesh of ", total, " devices on a world of ", world_size, " ranks"),
                    "the product of the mesh's axis sizes must equal the number of ranks");
  if (names.empty()) throw_bad_input("mesh_groups: no axis name", hint);
  std::vector<size_t> named;  // mesh axis of each name, in the order given
  for (const std::string& n : names) {
    auto it = std::find_if(m.axes.begin(), m.axes.end(), [&](const auto& a) { return a.first == n; });
    if (it == m.axes.end()) throw_bad_input(cat("mesh_groups: the mesh has no axis '", n, "'"), hint);
    const size_t a = size_t(it - m.axes.begin());
    if (std::count(named.begin(), named.end(), a)) throw_bad_input(cat("mesh_groups: axis '", n, "' named twice"), hint);
    named.push_back(a);
  }
  int64_t combined = 1;
  for (size_t a : named) combined *= m.axes[a].second;
  check_groups(aig, int(combined), false, "mesh_groups");
  Groups out;
  for (int64_t base = 0; base < total; ++base) {
    bool first = true;  // base is the lowest rank of its group: every named coordinate 0
    for (size_t a : named) first = first && (base / stride[a]) % m.axes[a].second == 0;
    if (!first) continue;
    std::vector<int> members;  // by combined index, row-major over names as given
    for (int64_t k = 0; k < combined; ++k) {
      int64_t rank = base, rest = k;
      for (size_t j = named.size(); j-- > 0;) {
        rank += (rest % m.axes[named[j]].second) * stride[named[j]];
        rest /= m.axes[named[j]].second;
      }
      members.push_back(int(rank));
    }
    if (aig.empty()) out.push_back(members);
    for (const auto& grp : aig) {
      out.emplace_back();
      for (int k : grp) out.back().push_back(members[size_t(k)]);
    }
  }
  return out;
}

Tensor pgather(Collectives& c, const Tensor& x, const Tensor& idx, const Groups& g) {
  if (idx.dtype() != DType::i32 || idx.device().kind != DeviceKind::cpu)
    throw_bad_input(cat("pgather: idx is ", idx.type().str(), " on ", idx.device().str()), "pass idx as an i32 host tensor");
  // The gathered stack [G, x...] (validated and agreed by all_gather), then rows by index,
  // copied where the stack is (LocalOps: memcpy on host, cudaMemcpyAsync on a GPU).
  const Tensor stack = all_gather(c, x, 0, false, g);
  const int64_t G = stack.shape()[0], row = int64_t(x.nbytes());
  Shape shape = idx.shape();
  shape.insert(shape.end(), x.shape().begin(), x.shape().end());
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  const int32_t* at = idx.data<int32_t>();
  std::vector<CopySpan> rows;
  for (int64_t j = 0; j < idx.numel(); ++j) {
    const int64_t k = std::clamp<int64_t>(at[j], 0, G - 1);
    rows.push_back({stack.data<char>() + k * row, out.data<char>() + j * row, row});
  }
  c.group(g).local().copy(rows);
  return out;
}

}  // namespace tandem::comm
