// The collectives suite's registration: every op × dtype × group layout as a quick case (the
// op table's axis-grid rows in f32 only), on the host through MPI and on a GPU through NCCL
// (device buffers). Cases run on the MPI
// world this process is part of (world size 1 without a launcher); a layout that does not
// fit the world size, or a GPU case without NCCL or a GPU, is a skip with the reason.
#include <algorithm>

#include "engine/comm/mpi_communicator.h"
#include "engine/core/error.h"
#include "harness/harness.h"
#include "suites/collectives/collectives_cases.h"
#include "suites/register_suites.h"

namespace tandem {

void register_collectives_suite(Registry& reg) {
  for (const std::string& op : coll::op_names(false))
    for (DType t : coll::kDTypes)
      for (const std::string& layout : coll::kLayouts) {
        if (coll::find_op(op)->axis_grid && t != DType::f32) continue;  // the grid varies the axis only
        coll::CollSpec s{op, t, layout};
        Case c;
        c.suite = "collectives";
        c.name = coll::case_name(s);
        c.params = {{"op", op}, {"dtype", dtype_name(t)}, {"groups", layout}};
        c.profiles = profiles_from("quick");
        c.agrees_across_ranks = true;  // make_nccl_communicator agrees on GPU availability
        // On the host: the MPI backend; on a GPU (--backend cuda): NCCL on device buffers.
        c.instantiate = [s](Device d) -> CaseInstance {
          // The world size the launcher announces (1 without one) decides whether the
          // layout fits before MPI starts: a test process that only skips then costs no
          // MPI_Init (a third of a second per process as a singleton). mpi_world() refuses
          // a world that disagrees with the launcher, so the two sizes are the same.
          std::string why;
          coll::layout_groups(s.layout, std::max(1, comm::launcher_world_size()), s.op, &why);
          if (!why.empty()) throw_unsupported(why);
          // Alone (no launcher), this rank's own view of the GPU is the agreed one: skip
          // without starting MPI. Under a launcher, backend_collectives agrees across ranks.
          if (comm::launcher_world_size() <= 1)
            if (std::string dev = device_unavailable_reason(d); !dev.empty()) throw_unsupported(dev);
          comm::Collectives& ctx = coll::backend_collectives(d);
          coll::layout_groups(s.layout, ctx.world().size(), s.op, &why);
          if (!why.empty()) throw_unsupported(why);
          CaseInstance inst;
          inst.body = [s, &ctx] { coll::run_once(ctx, s); };
          inst.check = [s, &ctx] { return coll::check_collective(ctx, s); };
          inst.info["ranks"] = ctx.world().size();
          inst.info["transport"] = ctx.world().backend();
          return inst;
        };
        reg.add(std::move(c));
      }
}

}  // namespace tandem
