#pragma once
// Fuses a contraction, its BiasAdd and an activation into one node, as TensorFlow's grappler
// remapper does for the CPU:
//
//   Conv2D ─▶ BiasAdd ─▶ Relu          ⇒   _FusedConv2D(fused_ops [BiasAdd, Relu])
//   DepthwiseConv2dNative ─▶ BiasAdd   ⇒   _FusedDepthwiseConv2dNative(fused_ops [BiasAdd])
//   MatMul ─▶ BiasAdd ─▶ Sigmoid       ⇒   _FusedMatMul(fused_ops [BiasAdd, Sigmoid])
//
// Activations: Relu, Relu6, Elu, LeakyRelu (its alpha becomes leakyrelu_alpha), Sigmoid, Tanh.
// The fused node takes the name (and so the consumers and fetches) of the last node it
// replaces, and the control inputs of all of them. A chain is fused only when
// - every node but the last has no consumer other than the next one (no control consumer, no
//   second reader, no _Send) and is not protected (fetched, fed or a target);
// - all of them run on one CPU device: their device is empty (a local session, which runs
//   everything on its CPU) or names a CPU (a partition the master placed there);
// - T is float32 or float64, the convolution is NHWC and the BiasAdd is NHWC: what the CPU
//   kernels (kernels/cpu/fused_*) implement.
// Without an activation after it, Conv2D + BiasAdd alone is fused too.
#include "graph/ir/passes/pass.hpp"

namespace caflow {

class remapper_pass final : public graph_pass {
 public:
  std::string name() const override { return "remapper"; }
  // stats.removed counts the nodes fused away (two or one per fused chain).
  status run(graph_def& g, pass_context& ctx, pass_stats& stats) override;
};

}  // namespace caflow
