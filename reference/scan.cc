// scan: slice x_t out of each xs, call the body, check what it returns, stack the ys.
#include "reference/scan.h"

#include <algorithm>
#include <string>

namespace tandem::ref {
namespace {

std::string describe(const Array& a) {
  return std::string(dtype_name(a.dtype)) + shape_string(a.shape);
}

// x: [length, ...] -> x[t]: [...]
Array index_leading(const Array& x, int64_t t) {
  const std::vector<int64_t> inner(x.shape.begin() + 1, x.shape.end());
  const int64_t size = shape_numel(inner);
  return Array{inner, x.dtype, std::vector<double>(x.data.begin() + t * size, x.data.begin() + (t + 1) * size)};
}

void require_same_types(const char* what, const std::vector<Array>& expected,
                        const std::vector<Array>& got, int64_t t) {
  require(got.size() == expected.size(), std::string("scan: step ") + std::to_string(t) + " returned " +
                                             std::to_string(got.size()) + " " + what + ", expected " +
                                             std::to_string(expected.size()));
  for (size_t i = 0; i < got.size(); ++i) {
    check_array(got[i], std::string("scan: ") + what);
    require(got[i].dtype == expected[i].dtype && got[i].shape == expected[i].shape,
            std::string("scan: step ") + std::to_string(t) + " " + what + "[" + std::to_string(i) +
                "] is " + describe(got[i]) + ", expected " + describe(expected[i]));
  }
}

}  // namespace

std::pair<std::vector<Array>, std::vector<Array>> scan(const ScanBody& body, const std::vector<Array>& consts,
                                                       const std::vector<Array>& init, const std::vector<Array>& xs,
                                                       int64_t length, bool reverse) {
  require(static_cast<bool>(body), "scan: empty body");
  require(length >= 0, "scan: negative length " + std::to_string(length));
  for (const Array& c : consts) check_array(c, "scan consts");
  for (const Array& c : init) check_array(c, "scan init");
  for (const Array& x : xs) {
    check_array(x, "scan xs");
    require(x.rank() >= 1 && x.shape[0] == length,
            "scan: xs operand " + describe(x) + " needs leading dim " + std::to_string(length));
  }
  std::vector<Array> carry = init;
  std::vector<Array> ys;       // [length, ...] each, allocated after the first step
  std::vector<Array> y_types;  // the first step's y_t, to check later steps against
  for (int64_t step = 0; step < length; ++step) {
    const int64_t t = reverse ? length - 1 - step : step;
    std::vector<Array> x_t;
    for (const Array& x : xs) x_t.push_back(index_leading(x, t));
    auto [new_carry, y_t] = body(consts, carry, x_t);
    require_same_types("carry", init, new_carry, t);
    if (step == 0) {
      for (const Array& y : y_t) {
        check_array(y, "scan: y");
        std::vector<int64_t> shape{length};
        shape.insert(shape.end(), y.shape.begin(), y.shape.end());
        ys.push_back(Array{shape, y.dtype, std::vector<double>(static_cast<size_t>(length * y.numel()))});
      }
      y_types = y_t;
    }
    require_same_types("ys", y_types, y_t, t);
    for (size_t j = 0; j < y_t.size(); ++j)
      std::copy(y_t[j].data.begin(), y_t[j].data.end(),
                ys[j].data.begin() + t * static_cast<int64_t>(y_t[j].data.size()));
    carry = std::move(new_carry);
  }
  return {std::move(carry), std::move(ys)};
}

}  // namespace tandem::ref
