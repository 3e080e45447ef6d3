// device_put to a memory kind (JAX's jax.device_put(x, TransferToMemoryKind(kind)) as a
// primitive): the identity on values that moves its operand into another memory kind of the
// device the program runs on ("device", "pinned_host", "unpinned_host"; engine/core/device.h).
// The vjp pass inserts it at the residual boundary for what a remat policy offloads: the
// forward copies the residual to pinned host memory right after it is produced (its device
// buffer is freed after its last forward use, so the device's peak really drops), and the
// backward copies it back just before its first use. Every copy is counted by the Allocator
// (Allocator::transfers), so offloaded bytes are measured, not predicted.
// Params: memory_kind (destination), src_memory_kind (where the operand lives; the
// transpose goes back there). On the CPU backend the host kinds are host memory counted
// apart; on CUDA the pinned kind is the pinned host pool of engine/cuda/pinned_pool.h.
#pragma once
#include "engine/core/device.h"
#include "engine/ir/builder.h"

namespace tandem {

Value device_put(Value x, MemoryKind to, MemoryKind from = MemoryKind::device);
// Whether `e` is a device_put into a host memory kind (an offload, not a reload).
bool is_offload(const Eqn& e);

void register_device_put_primitive();

}  // namespace tandem
