// comm_axis: NamedAxis by the JAX-semantics collectives of collectives.h. Data is staged to
// the communicator's device (host for MPI, the GPU for NCCL) and the result returned on the
// operand's device, so the collective primitives' CPU and CUDA impls share this path.
#include "engine/comm/comm_axis.h"

#include "engine/core/error.h"

namespace tandem::comm {
namespace {

class CommAxis : public NamedAxis {
 public:
  CommAxis(Collectives& c, std::string name, Groups g) : c_(c), name_(std::move(name)), groups_(std::move(g)) {}
  int size() const override { return c_.group(groups_).size(); }
  int index() const override { return c_.group(groups_).rank(); }
  std::string describe() const override {
    return cat("axis '", name_, "' (", c_.world().backend(), ", ", size(), " of ", c_.world().size(), " ranks)");
  }
  Tensor reduce(const Tensor& x, AxisReduce op) override {
    Tensor h = on_comm(x);
    switch (op) {
      case AxisReduce::sum: return back(psum(c_, h, groups_), x);
      case AxisReduce::max: return back(pmax(c_, h, groups_), x);
      case AxisReduce::min: return back(pmin(c_, h, groups_), x);
      case AxisReduce::mean: return back(pmean(c_, h, groups_), x);
    }
    throw Error(ErrorKind::invariant, "unknown AxisReduce");
  }
  Tensor all_gather(const Tensor& x, int64_t axis, bool tiled) override {
    return back(comm::all_gather(c_, on_comm(x), axis, tiled, groups_), x);
  }
  Tensor psum_scatter(const Tensor& x, int64_t dim, bool tiled) override {
    return back(comm::psum_scatter(c_, on_comm(x), dim, tiled, groups_), x);
  }
  Tensor all_to_all(const Tensor& x, int64_t split_axis, int64_t concat_axis, bool tiled) override {
    return back(comm::all_to_all(c_, on_comm(x), split_axis, concat_axis, tiled, groups_), x);
  }
  Tensor ppermute(const Tensor& x, const std::vector<std::pair<int, int>>& perm) override {
    // Axis indices → world ranks, the same pairs inside every group.
    std::vector<std::pair<int, int>> world;
    if (groups_.empty()) {
      world = perm;
    } else {
      for (const std::vector<int>& g : groups_)
        for (auto [s, d] : perm) {
          if (s < 0 || d < 0 || s >= int(g.size()) || d >= int(g.size()))
            throw_bad_input(cat("ppermute over ", describe(), ": pair (", s, ", ", d, ") is out of range"),
                            "axis indices lie in [0, axis size)");
          world.push_back({g[size_t(s)], g[size_t(d)]});
        }
    }
    return back(comm::ppermute(c_, on_comm(x), world), x);
  }

 private:
  Tensor on_comm(const Tensor& x) const { return x.to(c_.world().device()); }
  static Tensor back(const Tensor& r, const Tensor& like) { return r.to(like.device()); }
  Collectives& c_;
  std::string name_;
  Groups groups_;
};

}  // namespace

std::shared_ptr<NamedAxis> comm_axis(Collectives& c, const std::string& name, const Groups& groups) {
  return std::make_shared<CommAxis>(c, name, groups);
}

}  // namespace tandem::comm
