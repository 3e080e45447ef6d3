// cond (cond.h): lax.cond / lax.switch as one primitive with its branches as sub-programs.
#include "engine/prims/cond.h"

#include "engine/core/error.h"
#include "engine/prims/primitive_of.h"

namespace tandem {
namespace {

std::string types_str(const std::vector<AType>& ts) {
  std::string r;
  for (const AType& t : ts) r += (r.empty() ? "" : ", ") + t.str();
  return "(" + r + ")";
}

std::vector<AType> cond_shape(const std::vector<AType>& in, const Params& p) {
  if (in.empty()) throw_bad_input("cond takes an index and the branches' operands, got no operands");
  if (in[0] != AType{{}, DType::i32})
    throw_bad_input(cat("cond: the index is ", in[0].str(), ", not an i32 scalar"),
                    "lax.cond binds convert_element_type(pred, int32); lax.switch an int32 index");
  const std::vector<ProgramPtr> branches = cond_branches(p);
  const std::vector<AType> ops(in.begin() + 1, in.end());
  for (size_t i = 0; i < branches.size(); ++i) {
    if (branches[i]->in_types() != ops)
      throw_bad_input(cat("cond: branch ", i, " takes ", types_str(branches[i]->in_types()), " but is given ",
                          types_str(ops)),
                      "every branch takes the cond's operands after the index");
    if (branches[i]->out_types() != branches[0]->out_types())
      throw_bad_input(cat("cond: branch ", i, " returns ", types_str(branches[i]->out_types()), ", branch 0 ",
                          types_str(branches[0]->out_types())),
                      "every branch must return the same types, as lax.cond requires");
  }
  return branches[0]->out_types();
}

std::vector<Tensor> cond_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  return run_cond(in, p, ctx, *in[0].data<int32_t>());
}
}  // namespace

std::string cond_branch_param(int i) { return cat("branch_", i); }

std::vector<ProgramPtr> cond_branches(const Params& p) {
  std::vector<ProgramPtr> r;
  for (int i = 0; i < kMaxCondBranches && p.has(cond_branch_param(i)); ++i) r.push_back(p.get_program(cond_branch_param(i)));
  if (r.empty()) throw_bad_input("cond: no branches (params branch_0, branch_1, ...)", "give each branch as a program");
  for (int i = int(r.size()); i < kMaxCondBranches; ++i)
    if (p.has(cond_branch_param(i)))
      throw_bad_input(cat("cond: ", cond_branch_param(i), " given without ", cond_branch_param(int(r.size()))));
  for (const ProgramPtr& b : r)
    if (!b) throw_bad_input("cond: every branch must be a program");
  return r;
}

int64_t cond_branch_index(int64_t index, int64_t n) { return index >= 0 && index < n ? index : n - 1; }

std::vector<Tensor> run_cond(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx, int64_t index) {
  const std::vector<ProgramPtr> branches = cond_branches(p);
  const ProgramPtr& b = branches[size_t(cond_branch_index(index, int64_t(branches.size())))];
  return ctx.run_program(*b, std::vector<Tensor>(in.begin() + 1, in.end()));
}

std::vector<Value> cond(Value index, const std::vector<Program>& branches, const std::vector<Value>& operands) {
  if (branches.empty() || branches.size() > size_t(kMaxCondBranches))
    throw_bad_input(cat("cond of ", branches.size(), " branches"), cat("give 1 to ", kMaxCondBranches, " branches"));
  Params q;
  for (size_t i = 0; i < branches.size(); ++i) q.set(cond_branch_param(int(i)), std::make_shared<const Program>(branches[i]));
  std::vector<Value> in{index};
  in.insert(in.end(), operands.begin(), operands.end());
  return index.builder()->bind("cond", in, q);
}

void register_cond_primitive() {
  Primitive p = primitive_of("cond", kControlFlow, {}, cond_shape, cond_cpu);
  for (int i = 0; i < kMaxCondBranches; ++i) p.params.push_back(cond_branch_param(i));
  register_primitive(std::move(p));
}

}  // namespace tandem
