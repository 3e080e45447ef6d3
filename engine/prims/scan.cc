// scan (lax.scan semantics): operands are consts, initial carry and xs; the body maps
// (consts, carry, x_t) → (carry, y_t); outputs are the final carry and ys stacked on axis 0.
// reverse walks t = length-1 … 0 and still stores y_t at index t. unroll is recorded for
// passes and printing; the interpreter's result does not depend on it.
#include <cstring>

#include "engine/prims/primitive_of.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"

namespace tandem {
namespace {

struct ScanSig {
  int64_t num_consts, num_carry, length;
  bool reverse;
  const Program* body;
};

ScanSig signature(const Params& p) {
  ScanSig s{p.get_int("num_consts"), p.get_int("num_carry"), p.get_int("length"),
            p.get_bool("reverse", false), p.get_program("body").get()};
  if (s.num_consts < 0 || s.num_carry < 0 || s.length < 0)
    throw_bad_input("scan: num_consts, num_carry and length must be non-negative");
  if (p.get_int("unroll", 1) < 1) throw_bad_input("scan: unroll must be >= 1");
  return s;
}

std::vector<AType> scan_shape(const std::vector<AType>& in, const Params& p) {
  ScanSig s = signature(p);
  int64_t n_x = int64_t(in.size()) - s.num_consts - s.num_carry;
  if (n_x < 0)
    throw_bad_input(cat("scan: ", in.size(), " operands but num_consts + num_carry = ", s.num_consts + s.num_carry));
  std::vector<AType> body_in(in.begin(), in.begin() + s.num_consts + s.num_carry);
  for (int64_t i = 0; i < n_x; ++i) {
    const AType& x = in[size_t(s.num_consts + s.num_carry + i)];
    if (x.rank() == 0 || x.shape[0] != s.length)
      throw_bad_input(cat("scan: xs operand ", i, " is ", x.str(), ", needs leading dim ", s.length),
                      "scan slices each xs along axis 0, which must equal length");
    body_in.push_back(AType{Shape(x.shape.begin() + 1, x.shape.end()), x.dtype});
  }
  std::vector<AType> want_in = s.body->in_types();
  if (want_in != body_in)
    throw_bad_input("scan: body input types do not match consts, carry and x slices",
                    "the body takes (consts..., carry..., x_t...)");
  std::vector<AType> body_out = s.body->out_types();
  if (int64_t(body_out.size()) < s.num_carry) throw_bad_input("scan: body returns fewer values than the carry has");
  for (int64_t i = 0; i < s.num_carry; ++i)
    if (body_out[size_t(i)] != in[size_t(s.num_consts + i)])
      throw_bad_input(cat("scan: carry ", i, " enters as ", in[size_t(s.num_consts + i)].str(),
                          " but the body returns ", body_out[size_t(i)].str()),
                      "the carry must keep its type across iterations");
  std::vector<AType> out(body_out.begin(), body_out.begin() + s.num_carry);
  for (size_t i = size_t(s.num_carry); i < body_out.size(); ++i) {
    Shape st{s.length};
    st.insert(st.end(), body_out[i].shape.begin(), body_out[i].shape.end());
    out.push_back(AType{st, body_out[i].dtype});
  }
  return out;
}

// Row t of a host tensor whose axis 0 is the scan axis.
Tensor row(const Tensor& xs, int64_t t) {
  Tensor r = Tensor::empty(Shape(xs.shape().begin() + 1, xs.shape().end()), xs.dtype());
  std::memcpy(r.raw(), static_cast<const char*>(xs.raw()) + t * r.nbytes(), r.nbytes());
  return r;
}

std::vector<Tensor> scan_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  ScanSig s = signature(p);
  std::vector<AType> in_types;
  for (const Tensor& t : in) in_types.push_back(t.type());
  std::vector<AType> out_types = scan_shape(in_types, p);
  size_t nc = size_t(s.num_consts), nk = size_t(s.num_carry);
  std::vector<Tensor> carry(in.begin() + nc, in.begin() + nc + nk);
  std::vector<Tensor> ys;
  for (size_t i = nk; i < out_types.size(); ++i) ys.push_back(Tensor::empty(out_types[i].shape, out_types[i].dtype));
  // Faults: the loop skips its first or its last step; reverse=True is ignored.
  const int64_t first = fault_on(Fault::scan_drops_first_step) && s.length > 0 ? 1 : 0;
  const int64_t end = fault_on(Fault::scan_drops_last_step) && s.length > 0 ? s.length - 1 : s.length;
  const bool reverse = s.reverse && !fault_on(Fault::scan_reverse_ignored);
  for (size_t i = 0; i < ys.size() && first + s.length - end > 0; ++i)  // skipped rows read as 0, not garbage
    std::memset(ys[i].raw(), 0, ys[i].nbytes());
  for (int64_t step = first; step < end; ++step) {
    int64_t t = reverse ? s.length - 1 - step : step;
    std::vector<Tensor> args(in.begin(), in.begin() + nc);
    args.insert(args.end(), carry.begin(), carry.end());
    for (size_t i = nc + nk; i < in.size(); ++i) args.push_back(row(in[i], t));
    std::vector<Tensor> out = ctx.run_program(*s.body, args);
    for (size_t i = 0; i < nk; ++i) carry[i] = out[i];
    for (size_t i = 0; i < ys.size(); ++i) {
      const Tensor& y = out[nk + i];
      std::memcpy(static_cast<char*>(ys[i].raw()) + t * y.nbytes(), y.raw(), y.nbytes());
    }
  }
  carry.insert(carry.end(), ys.begin(), ys.end());
  return carry;
}
}  // namespace

void register_scan_primitive() {
  register_primitive(primitive_of("scan", kControlFlow | kLoop,
                                  {"body", "length", "num_consts", "num_carry", "reverse", "unroll"}, scan_shape,
                                  scan_cpu));
}

}  // namespace tandem
