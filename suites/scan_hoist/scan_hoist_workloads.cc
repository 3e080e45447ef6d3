// Program builders and streaming oracles for the scan_hoist suite. The oracles mirror
// reference_eval exactly (same tandem::ref ops, same f64 summation order, same rounding of
// the sum and of the divisor) but hold one step at a time.
#include "suites/scan_hoist/scan_hoist_workloads.h"

#include <cmath>

#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "reference/reference.h"

namespace tandem {
namespace {

std::vector<int64_t> all_axes(int rank) {
  std::vector<int64_t> a;
  for (int64_t i = 0; i < rank; ++i) a.push_back(i);
  return a;
}
Shape stacked(int64_t L, const Shape& row) {
  Shape s{L};
  s.insert(s.end(), row.begin(), row.end());
  return s;
}

// Row r (along axis 0) of a host tensor, as a reference array.
ref::Array row_of(const Tensor& t, int64_t r) {
  int64_t n = t.numel() / t.shape()[0];
  ref::Array a{Shape(t.shape().begin() + 1, t.shape().end()), t.dtype(), std::vector<double>(size_t(n))};
  for (int64_t i = 0; i < n; ++i) a.data[size_t(i)] = load_as_f64(t.raw(), t.dtype(), r * n + i);
  return a;
}

// What reference_eval does after summing: round the f64 sum, divide by the rounded count.
double mean_from_sum(double sum, DType dt, double count) {
  return ref::binary("div", ref::scalar(dt, sum), ref::scalar(dt, count)).data[0];
}

// Σ_t Σ_e (y − cos x2)², in f64 as reference_eval adds it.
double mse_sum(const std::vector<Tensor>& in, int64_t L) {
  double sum = 0;
  for (int64_t t = 0; t < L; ++t) {
    ref::Array d = ref::binary("sub", row_of(in[2], t), ref::unary("cos", row_of(in[1], t)));
    for (double v : ref::integer_pow(d, 2).data) sum += v;
  }
  return sum;
}

// Σ_t Σ_e sin^t(x) (or of its absolute values), in f64, one step at a time.
double sin_chain_sum(const std::vector<Tensor>& in, int64_t L, bool absolute) {
  ref::Array c{in[0].shape(), in[0].dtype(), in[0].to_f64()};
  double sum = 0;
  for (int64_t t = 0; t < L; ++t) {
    c = ref::unary("sin", c);
    for (double v : c.data) sum += absolute ? std::abs(v) : v;
  }
  return sum;
}

}  // namespace

Workload mse_workload(int64_t L, const Shape& row, DType dt, bool reverse, int64_t unroll) {
  Shape st = stacked(L, row);
  int64_t E = num_elements(row), n = L * E;
  Program body = trace({{{5, 8}, dt}, {row, dt}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{sin(in[0]), cos(in[1])};
  });
  Workload w;
  w.kind = "mse";
  w.program = trace({{{5, 8}, dt}, {st, dt}, {st, dt}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(body, {}, {in[0]}, {in[1]}, L, reverse, unroll)[1];
    return std::vector<Value>{reduce_sum(integer_pow(in[2] - ys, 2), all_axes(int(st.size()))) / double(n)};
  });
  w.length = L;
  w.per_step = E;
  w.dtype = dt;
  // |y − cos x| ≤ 2, so a term is ≤ 4; cos's ulp and the sub's rounding make ≤ 20u per term.
  w.model = SumModel{n, 1.0 / double(n), 4.0, 6.0, E, L};
  w.oracle = [L, dt, n](const std::vector<Tensor>& in) {
    return std::vector<double>{mean_from_sum(mse_sum(in, L), dt, double(n))};
  };
  // The terms are squares: Σ|terms| is the sum itself.
  w.abs_total = [L, n](const std::vector<Tensor>& in) { return mse_sum(in, L) / double(n); };
  return w;
}

Workload sin_mean_workload(int64_t L, const Shape& row, DType dt) {
  int64_t E = num_elements(row), n = L * E;
  Program body = trace({{row, dt}}, [](Builder&, const std::vector<Value>& in) {
    Value s = sin(in[0]);
    return std::vector<Value>{s, s};
  });
  Workload w;
  w.kind = "sin_mean";
  w.program = trace({{row, dt}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(body, {}, {in[0]}, {}, L)[1];
    return std::vector<Value>{reduce_sum(ys, all_axes(int(row.size()) + 1)) / double(n)};
  });
  w.length = L;
  w.per_step = E;
  w.dtype = dt;
  // The carry is sin applied t times: one ulp (≤ 2u) per application, never amplified
  // (|sin'| ≤ 1), so step t's term is off by ≤ 2u·t.
  w.model = SumModel{n, 1.0 / double(n), 1.0, 2.0 * double(L) + 2, E, L};
  w.oracle = [L, dt, n](const std::vector<Tensor>& in) {
    return std::vector<double>{mean_from_sum(sin_chain_sum(in, L, false), dt, double(n))};
  };
  w.abs_total = [L, n](const std::vector<Tensor>& in) { return sin_chain_sum(in, L, true) / double(n); };
  return w;
}

Workload nested_mean_workload(int64_t outer, int64_t inner, int64_t E) {
  const DType f32 = DType::f32;
  Program inner_body = trace({{{E}, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{cos(in[0])};
  });
  Program outer_body = trace({{{inner, E}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{scan(inner_body, {}, {}, {in[0]}, inner)[0]};
  });
  int64_t n = outer * inner * E;
  Workload w;
  w.kind = "nested_mean";
  w.program = trace({{{outer, inner, E}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(outer_body, {}, {}, {in[0]}, outer)[0];
    return std::vector<Value>{reduce_sum(ys, {0, 1, 2}) / double(n)};
  });
  w.length = outer;
  w.per_step = inner * E;
  w.model = SumModel{n, 1.0 / double(n), 1.0, 2.0, E, inner + outer};
  w.expected_rewrites = 2;  // the outer scan, then the inner one inside its body
  return w;
}

Workload several_ys_workload(int64_t L, int64_t E) {
  const DType f32 = DType::f32;
  Program body = trace({{{E}, f32}, {{E}, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{sin(in[0]), cos(in[1]), tanh(in[1]), in[1] * 2.0};
  });
  Workload w;
  w.kind = "several_ys";
  w.program = trace({{{E}, f32}, {{L, E}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    auto o = scan(body, {}, {in[0]}, {in[1]}, L);
    return std::vector<Value>{reduce_sum(exp(o[1] - o[3]), {1}), o[2]};
  });
  w.length = L;
  w.per_step = E;
  // cos x − 2x ∈ [−1.5, 3] for x ∈ [−1, 1]: a term is ≤ e³; exp turns the argument's ≤ 5u
  // absolute error into ≤ 5u relative, plus its own ulp.
  w.model = SumModel{E, 1.0, std::exp(3.0), 8.0, E, 1};
  w.elementwise_outputs = {1};  // tanh(x), returned as is
  return w;
}

Workload dependent_sums_workload(int64_t L, int64_t B, int64_t F, bool integers) {
  const DType f32 = DType::f32;
  Program body = trace({{{B, F}, f32}}, [integers](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{integers ? in[0] * 2.0 : sin(in[0])};
  });
  Workload w;
  w.kind = "dependent_sums";
  w.program = trace({{{L, B, F}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(body, {}, {}, {in[0]}, L)[0];
    return std::vector<Value>{reduce_sum(ys, {0, 1, 2}), reduce_sum(ys, {1, 2}), reduce_sum(ys, {0, 2})};
  });
  w.length = L;
  w.per_step = B * F;
  // One spec for the three outputs, from the largest: L·B·F terms; F per step, then the
  // [L, B, 1] partials.
  w.model = SumModel{L * B * F, 1.0, 1.0, 2.0, F, L * B};
  // Σ|sin x| over all of xs bounds every output's Σ|terms| (out1 and out2 sum subsets).
  if (!integers)
    w.abs_total = [](const std::vector<Tensor>& in) {
      double s = 0;
      for (double v : in[0].to_f64()) s += std::abs(std::sin(v));
      return s;
    };
  // Integers |2x| ≤ 16: every partial sum ≤ 16·L·B·F, exact in f32 below 2^24.
  w.exact = integers && 16 * L * B * F < (int64_t(1) << 24);
  TANDEM_CHECK(!integers || w.exact, "dependent_sums ", L, "x", B, "x", F, ": integer sums not exact in f32");
  return w;
}

Workload int_sum_workload(int64_t L, const Shape& row, bool reverse) {
  const DType f32 = DType::f32;
  Shape st = stacked(L, row);
  int64_t E = num_elements(row);
  Program body = trace({{row, f32}, {row, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{in[0] + in[1], in[1] * 2.0 + in[0]};
  });
  Workload w;
  w.kind = "int_sum";
  w.program = trace({{row, f32}, {st, f32}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(body, {}, {in[0]}, {in[1]}, L, reverse)[1];
    return std::vector<Value>{reduce_sum(ys, all_axes(int(st.size())))};
  });
  w.length = L;
  w.per_step = E;
  w.model = SumModel{L * E, 1.0, 16.0 + 8.0 * double(L + 1), 0.0, E, L};
  // |c_t| ≤ 8(t+1), |y_t| ≤ 16 + 8(t+1): every partial sum is an integer below 2^24.
  w.exact = double(L * E) * w.model.term_bound < double(int64_t(1) << 24);
  TANDEM_CHECK(w.exact, "int_sum L=", L, " E=", E, ": integer sums not exact in f32");
  return w;
}

std::vector<DeclineWorkload> decline_workloads() {
  const DType f32 = DType::f32;
  Program body = trace({{{4, 3}, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{cos(in[0])};
  });
  auto with = [&](const std::string& kind, const char* reason,
                  std::function<std::vector<Value>(Value, const std::vector<Value>&)> use) {
    Program p = trace({{{10, 4, 3}, f32}, {{10, 4, 3}, f32}}, [&](Builder&, const std::vector<Value>& in) {
      return use(scan(body, {}, {}, {in[0]}, 10)[0], in);
    });
    return DeclineWorkload{kind, p, reason};
  };
  return {
      with("non_reducible", kDeclineNonReducible, [](Value ys, const std::vector<Value>&) {
        return std::vector<Value>{reduce_sum(transpose(ys, {0, 2, 1}), {0, 1, 2})};
      }),
      with("used_twice", kDeclineUsedTwice, [](Value ys, const std::vector<Value>&) {
        return std::vector<Value>{reduce_sum(ys, {0, 1, 2}), ys};
      }),
      with("used_twice_in_chain", kDeclineUsedTwice, [](Value ys, const std::vector<Value>& in) {
        Value d = in[1] - ys;
        return std::vector<Value>{reduce_sum(d * d, {0, 1, 2}), d};
      }),
      with("bad_axes", kDeclineAxes, [](Value ys, const std::vector<Value>&) {
        return std::vector<Value>{reduce_sum(ys, {0})};
      }),
      with("disjoint_axes", kDeclineAxes, [](Value ys, const std::vector<Value>&) {
        return std::vector<Value>{reduce_sum(ys, {0, 1}), reduce_sum(ys, {0, 2})};
      }),
      // Legal, but 12 elements a step: the cost estimate (HoistOptions::min_step_elements)
      // declines, since the per-step eqns would make the program slower.
      with("small_steps", kDeclineTooSmall, [](Value ys, const std::vector<Value>& in) {
        return std::vector<Value>{reduce_sum(integer_pow(in[1] - ys, 2), {0, 1, 2})};
      }),
      with("operand_after_scan", kDeclineOperand, [](Value ys, const std::vector<Value>& in) {
        Value t = reduce_sum(ys, {0, 1, 2});
        return std::vector<Value>{reduce_sum(integer_pow(ys - in[1] * t, 2), {0, 1, 2})};
      }),
  };
}

}  // namespace tandem
