// register_all_primitives(): the one list of families, in the order their rules need.
#include "engine/prims/register_all.h"

#include <mutex>

namespace tandem {

void register_all_primitives() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_elementwise_primitives();
    register_structure_primitives();
    register_reduction_primitives();
    register_pad_rev_cumsum_primitives();
    register_dot_general_primitive();
    register_scan_primitive();
    register_while_primitive();
    register_conv_primitive();
    register_lstm_primitives();
    register_checkpoint_primitives();
    register_device_put_primitive();
    register_collective_primitives();
    register_gather_scatter_primitives();
    register_reduce_window_primitives();
    register_cond_primitive();
    register_sort_primitive();
    register_elementwise_more_primitives();
    register_vjp_rules();
    register_batch_rules();
    register_cond_rules();
    register_collective_rules();
    register_cuda_impls();
  });
}

}  // namespace tandem
