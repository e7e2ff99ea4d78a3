#pragma once
// What a fused op (_FusedConv2D, _FusedDepthwiseConv2dNative, FusedDepthwiseConv2dNative,
// _FusedMatMul) applies to its convolution or product, read from its attrs once: one home for
// the shape functions (graph/ops/) and the CPU kernels (kernels/cpu/fused_*), so graph
// construction and run time accept the same combinations and word their refusals alike.
//
// The grammar is TensorFlow's (grappler's remapper and the TF.js converter emit these):
//   fused_ops = [BiasAdd] | [BiasAdd, A] | [FusedBatchNorm] | [FusedBatchNorm, A]
//   A         = Relu | Relu6 | Elu | LeakyRelu | Sigmoid | Tanh | Prelu
// args (num_args of them, type T, after the op's two data inputs):
//   BiasAdd: bias [C]; FusedBatchNorm: scale, offset, mean, variance, each [C];
//   then Prelu's alpha (TF.js): a scalar or [C] (any shape of C elements whose last dim is C).
// epsilon is FusedBatchNorm's, leakyrelu_alpha LeakyRelu's slope for x < 0.
// Errors carry no node name: callers add it (shape functions and the executor do).
#include <string>
#include <vector>

#include "graph/core/status.hpp"
#include "graph/ir/graph_def.hpp"

namespace caflow {

enum class fused_base { bias_add, batch_norm };
enum class fused_activation { none, relu, relu6, elu, leaky_relu, sigmoid, tanh, prelu };

struct fused_op_spec {
  fused_base base = fused_base::bias_add;
  fused_activation activation = fused_activation::none;
  int num_args = 1;           // what fused_ops requires, and num_args holds
  float epsilon = 1e-4f;      // FusedBatchNorm's
  float leakyrelu_alpha = 0.2f;
  std::vector<std::string> fused_ops;  // as given, for messages

  // Per-channel args before Prelu's alpha: 1 (bias) or 4 (scale, offset, mean, variance).
  int channel_args() const { return base == fused_base::bias_add ? 1 : 4; }
  bool has_prelu() const { return activation == fused_activation::prelu; }
};

// "[BiasAdd, Relu]".
std::string describe_fused_ops(const std::vector<std::string>& ops);

// The activation named `name` (TF's op name: "Relu", "LeakyRelu", ...), or an error.
status_or<fused_activation> fused_activation_named(const std::string& name);
// TF's op name of an activation; "" for none.
const char* fused_activation_name(fused_activation a);

// Reads fused_ops, num_args, epsilon and leakyrelu_alpha of node `n` of op `op` and checks
// them against the grammar above; `batch_norm_allowed` is false for _FusedMatMul (TF fuses
// FusedBatchNorm only into convolutions). The error names the combination and what `op`
// supports.
status_or<fused_op_spec> parse_fused_op_spec(const node_def& n, bool batch_norm_allowed);

}  // namespace caflow
