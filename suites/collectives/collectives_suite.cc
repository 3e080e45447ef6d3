// The collectives suite's registration: every op × dtype × group layout as a quick case.
// Cases run on the MPI world this process is part of (world size 1 without a launcher); a
// layout that does not fit the world size is a skip with the reason and the mpirun to use.
#include "engine/comm/mpi_communicator.h"
#include "engine/core/error.h"
#include "suites/collectives/collectives_cases.h"
#include "suites/register_suites.h"

namespace tandem {

void register_collectives_suite(Registry& reg) {
  for (const std::string& op : coll::kOps)
    for (DType t : coll::kDTypes)
      for (const std::string& layout : coll::kLayouts) {
        coll::CollSpec s{op, t, layout};
        Case c;
        c.suite = "collectives";
        c.name = coll::case_name(s);
        c.params = {{"op", op}, {"dtype", dtype_name(t)}, {"groups", layout}};
        c.profiles = profiles_from("quick");
        c.instantiate = [s](Device d) -> CaseInstance {
          if (d.kind != DeviceKind::cpu)
            throw_unsupported("collectives cases run on the MPI backend (host buffers)",
                              "`tandem run collectives` sweeps; NCCL cases are not registered yet");
          static comm::Collectives ctx(comm::mpi_world());
          std::string why;
          coll::layout_groups(s.layout, ctx.world().size(), s.op, &why);
          if (!why.empty()) throw_unsupported(why);
          CaseInstance inst;
          inst.body = [s] { coll::run_once(ctx, s); };
          inst.check = [s] { return coll::check_collective(ctx, s); };
          inst.info["ranks"] = ctx.world().size();
          return inst;
        };
        reg.add(std::move(c));
      }
}

}  // namespace tandem
