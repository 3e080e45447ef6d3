// A named axis over a Communicator (engine/core/axis_env.h's NamedAxis bound to MPI or
// NCCL): the collective primitives of a Program run over it when the Executor's axis
// environment binds the name, e.g. {"ranks": comm_axis(collectives)} for the whole world.
// Groups (axis_index_groups, or mesh_groups for one axis of a device mesh) make the axis a
// subset of the world; every rank must bind the same names to the same groups.
#pragma once
#include <memory>
#include <string>

#include "engine/comm/collectives.h"
#include "engine/core/axis_env.h"

namespace tandem::comm {

std::shared_ptr<NamedAxis> comm_axis(Collectives& c, const std::string& name, const Groups& groups = {});

}  // namespace tandem::comm
