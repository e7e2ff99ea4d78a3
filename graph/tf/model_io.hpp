#pragma once
// The inputs and outputs of an imported model: what a caller feeds and fetches.
#include <string>
#include <vector>

#include "graph/ir/graph_def.hpp"

namespace caflow::tf {

// One input or output.
struct model_tensor {
  std::string name;   // the tensor: "image:0" (as a signature spells it), or "node" for port 0
  std::string node;   // "image"
  int port = 0;
  dtype type = dtype::invalid;             // invalid when not known (graph sinks)
  partial_shape shape = partial_shape{};   // unknown rank when not known
};

// Where the inputs (or the outputs) came from.
enum class io_source {
  signature,  // the model's signature (a TF.js model.json's `signature`), in its order
  // There is no signature (a GraphDef has none): the inputs are the Placeholder nodes (dtype and
  // shape from their attrs), the outputs every node that no other node consumes (port 0, dtype
  // and shape unknown), both in graph order, as TF.js's GraphModel takes them.
  graph,
};

// "signature" or "graph".
const char* io_source_name(io_source s);

// The Placeholder nodes of `g`, in graph order.
std::vector<model_tensor> graph_inputs(const graph_def& g);
// The nodes of `g` that no other node consumes (by data or control edge), in graph order.
std::vector<model_tensor> graph_outputs(const graph_def& g);

}  // namespace caflow::tf
