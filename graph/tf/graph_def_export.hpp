#pragma once
// Writing caflow's graph_def as a TensorFlow GraphDef.
//
// Node names, ops, inputs and devices are written as they are (caflow's are TensorFlow's);
// every attr is written, tensors as tensor_content; dtypes as TensorFlow's types. The binary
// form is what TensorFlow's tf.compat.v1.GraphDef.ParseFromString reads; text and JSON are
// protobuf's text format and JSON of the same message. graph/tf/graph_def_import.hpp reads all
// three back into an identical graph_def (for graphs of registered ops).
#include <string>

#include "graph/ir/graph_def.hpp"
#include "graph/tf/graph_encoding.hpp"

namespace caflow::tfproto {
class GraphDef;
}

namespace caflow::tf {

// Errors name the node and attr that cannot be written (an attr holding no value, an
// uninitialized or resource tensor).
status_or<std::string> write_graph_def(const graph_def& graph, graph_encoding encoding);

// The message itself, for callers that embed it in another one.
status graph_def_to_proto(const graph_def& graph, tfproto::GraphDef* proto);

}  // namespace caflow::tf
