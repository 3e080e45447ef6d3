// single_member_axis: the collectives of a group of one, computed on the tensor itself.
#include "engine/core/axis_env.h"

#include "engine/core/error.h"

namespace tandem {
namespace {

class SingleMember : public NamedAxis {
 public:
  explicit SingleMember(std::string name) : name_(std::move(name)) {}
  int size() const override { return 1; }
  int index() const override { return 0; }
  std::string describe() const override { return cat("axis '", name_, "' of one member"); }
  Tensor reduce(const Tensor& x, AxisReduce op) override {
    if (op == AxisReduce::mean && !is_floating(x.dtype()))  // JAX: integer pmean is true division
      return Tensor::from_f64(x.to(Device::cpu()).to_f64(), x.shape(), DType::f32).to(x.device());
    return x;
  }
  Tensor all_gather(const Tensor& x, int64_t axis, bool tiled) override {
    if (tiled) return x;
    Shape s = x.shape();
    s.insert(s.begin() + normalize_axis(axis, x.rank() + 1, "all_gather"), 1);
    return x.view(s);
  }
  Tensor psum_scatter(const Tensor& x, int64_t dim, bool tiled) override {
    if (tiled) return x;
    Shape s = x.shape();
    int d = normalize_axis(dim, x.rank(), "psum_scatter");
    if (s[size_t(d)] != 1) throw_bad_input(cat("psum_scatter: dimension ", d, " has size ", s[size_t(d)], ", the axis 1"));
    s.erase(s.begin() + d);
    return x.view(s);
  }
  Tensor all_to_all(const Tensor& x, int64_t split_axis, int64_t concat_axis, bool tiled) override {
    if (tiled) return x;
    Shape s = x.shape();
    int sp = normalize_axis(split_axis, x.rank(), "all_to_all");
    if (s[size_t(sp)] != 1) throw_bad_input(cat("all_to_all: split axis has size ", s[size_t(sp)], ", the axis 1"));
    s.erase(s.begin() + sp);
    s.insert(s.begin() + normalize_axis(concat_axis, int(s.size()) + 1, "all_to_all"), 1);
    return x.view(s);
  }
  Tensor ppermute(const Tensor& x, const std::vector<std::pair<int, int>>& perm) override {
    for (auto [src, dst] : perm)
      if (src == 0 && dst == 0) return x;
    return Tensor::zeros(x.shape(), x.dtype(), x.device());
  }

 private:
  std::string name_;
};

}  // namespace

std::shared_ptr<NamedAxis> single_member_axis(const std::string& name) { return std::make_shared<SingleMember>(name); }

std::vector<std::string> split_axis_names(const std::string& joined) {
  std::vector<std::string> r;
  size_t from = 0;
  while (true) {
    size_t comma = joined.find(',', from);
    r.push_back(joined.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  for (const std::string& n : r)
    if (n.empty()) throw_bad_input(cat("axis_name '", joined, "' has an empty name"), "name axes like \"i\" or \"v,r\"");
  return r;
}

}  // namespace tandem
