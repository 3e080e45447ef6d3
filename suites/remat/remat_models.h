// The remat suite's models, each a scalar loss traced at a dtype with every checkpoint under one policy: an N-layer MLP
// with named activations, a transformer-style attention block whose dots have batch dims, a scan over layers with a
// checkpointed body, the same layers' scan checkpointed whole (names inside the scan body), JAX's
// test_remat_checkpoint_dots_inside_scan, the LSTM Program (a scan over a cell, checkpointed whole), the jax.checkpoint
// docstring's recursive checkpointing of a chain of sin, and an RNN checkpointed whole whose step transposes its
// weights (loop-invariant residuals), and a sort by tied keys carrying what is differentiated (the vjp's permutation).
#pragma once
#include <string>
#include <vector>

#include "engine/ir/ir.h"

namespace tandem::remat {

struct Model {
  std::string kind;  // mlp | attention | scan_mlp | scan_in_checkpoint | dots_in_scan | lstm | sin_chain | rnn_wt | sort_ties
  int64_t layers = 4, batch = 4, width = 8, seq = 4;
  std::string names[2];         // the values it names with checkpoint_name ("" if none)
  Program build(DType dtype, const std::string& policy) const;
  std::string label() const;    // "mlp/L:4/B:4/D:8"
};

// Policies that make sense for a model (name policies only where it names values).
std::vector<std::string> policies_for(const Model& m);

}  // namespace tandem::remat
