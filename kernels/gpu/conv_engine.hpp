#pragma once
// Convolution plans from cuDNN's backend (graph) API: the second source of algorithms beside
// the legacy cudnnFind*AlgorithmEx (conv_algorithm.hpp). The backend exposes engines the legacy
// API does not (PyTorch's cudnn.benchmark times these), takes TensorFlow's asymmetric padding
// as separate pre and post paddings, and reads tensors of any strides, so the engine path runs
// on caflow's NHWC buffers and, where an engine accepts it, its HWIO filter, with no padded,
// transposed or cropped copies.
//
// Offering an engine is not trusting it: some accept the HWIO strides yet compute as if the
// filter were packed, so the search in conv_kernels.cpp keeps only engines whose output agrees
// with the legacy algorithm's (measured on an H100: every HWIO plan was dropped so).
//
// Only full-precision engines are offered (refusal_of in conv_engine_policy.hpp): float32
// compute, none that runs on tensor cores (TF32) or converts its inputs down, and none compiled
// at run time. CAFLOW_CUDNN_ENGINES=0 turns the path off (conv_engine_policy.hpp).
#include <string>
#include <vector>

#include "kernels/gpu/conv_engine_layout.hpp"
#include "kernels/gpu/cudnn_backend.hpp"

namespace caflow::gpu {

enum class conv_direction { forward, backward_data, backward_filter };

// A convolution's three operands, whichever is written: the forward pass reads x and w and
// writes y; backward data reads w and y (dy) and writes x (dx); backward filter reads x and y
// (dy) and writes w (dw). x and y are NHWC; w is in the plan's filter layout.
struct conv_pointers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
};

// The alignments (byte_alignment) of caflow's own buffers; the KRSC copy is always aligned.
struct conv_alignments {
  int64_t x = 16, w = 16, y = 16;
};

// A finalized execution plan; it keeps the graph and configuration it was made from alive.
struct engine_plan {
  backend_descriptor plan, config, graph;
  filter_layout layout = filter_layout::krsc;
  int64_t workspace_bytes = 0;
  int64_t engine = -1;  // cuDNN's global engine index, for messages
};

// The plans cuDNN's heuristics (mode A, then its fallback list) offer for this convolution, for
// both filter layouts, that refusal_of accepts, finalize and need at most max_engine_workspace:
// up to max_configs_per_query from each query, in the heuristics' order, duplicates dropped.
// An error (the last reason) when there is none. REQUIRES the caller to hold the handle's
// lease, and dilation 1.
status_or<std::vector<engine_plan>> engine_candidates(cudnnHandle_t h, conv_direction direction,
                                                      const conv2d_geometry& g,
                                                      const conv_alignments& alignments);

// Queues the plan on the handle's stream with these operands and a workspace of at least
// p.workspace_bytes (null when it needs none).
status execute(cudnnHandle_t h, const engine_plan& p, const conv_pointers& operands,
               void* workspace);

}  // namespace caflow::gpu
