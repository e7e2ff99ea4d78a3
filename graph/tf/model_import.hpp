#pragma once
// One entry point for every model file TensorFlow writes that caflow reads: a graph_def ready
// for session::extend, with the tensors to feed and fetch.
//
//   auto model = tf::import_graph_def("models/mobileface.json");
//   session sess;
//   sess.extend(model->graph);
//   sess.run_named({{model->inputs[0].name, x}}, {model->outputs[0].name});
//
// By extension: .pb (binary GraphDef), .pbtxt (text), .json (a TensorFlow.js model.json with its
// weight shards beside it, or a bare GraphDef in protobuf JSON). A GraphDef has no signature:
// its inputs are its Placeholders and its outputs its sinks (model_io.hpp). A folder holding
// saved_model.pb (or that file itself) is a TF1 SavedModel, frozen for its "serve" meta graph's
// default signature (saved_model.hpp).
#include <string>
#include <string_view>
#include <vector>

#include "graph/tf/graph_def_import.hpp"
#include "graph/tf/model_io.hpp"

namespace caflow::tf {

struct imported_model {
  graph_def graph;
  std::vector<model_tensor> inputs;
  std::vector<model_tensor> outputs;
  io_source inputs_source = io_source::graph;
  io_source outputs_source = io_source::graph;
  // "binary GraphDef", "text GraphDef", "json GraphDef", "TensorFlow.js graph model" or
  // "TF1 SavedModel".
  std::string format;
};

status_or<imported_model> import_graph_def(const std::string& path);
// A GraphDef in memory; `origin` starts every error message.
status_or<imported_model> import_graph_def(std::string_view bytes, graph_encoding encoding,
                                           const std::string& origin);

}  // namespace caflow::tf
