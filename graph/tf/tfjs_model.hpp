#pragma once
// A TensorFlow.js graph model (model.json and its weight shards) as a caflow graph_def.
//
//   auto model = tf::read_tfjs_model("models/posenet.json");
//   session sess;
//   sess.extend(model->graph);                               // every Const holds its weight
//   sess.run_named({{model->inputs[0].node, x}}, {model->outputs[0].name});
//
// model.json holds `format` ("graph-model"), `modelTopology` (a GraphDef in protobuf's JSON
// form, read by graph_def_import.hpp with its Const values left out), an optional `signature`
// (inputs and outputs, as a SavedModel's SignatureDef), and `weightsManifest`
// (tfjs_weights.hpp), whose shards lie beside model.json. Every weight fills the "value" attr of
// the Const node of its name; a weight naming no Const node, a Const node that no weight fills
// and has no value of its own, a missing or short shard, or a field of the wrong JSON type is
// an error naming the file and the weight or field. Nothing is guessed.
//
// nsfwjs ships its models as JS modules (model.min.js exporting the model.json object, each
// shard a module exporting base64); scripts/fetch_models.sh converts them to this form with
// node, and this reader reads only model.json + binary shards.
#include <string>
#include <vector>

#include "graph/ir/graph_def.hpp"
#include "graph/tf/model_io.hpp"

namespace caflow::tf {

struct tfjs_model {
  graph_def graph;
  std::vector<model_tensor> inputs;
  std::vector<model_tensor> outputs;
  io_source inputs_source = io_source::signature;
  io_source outputs_source = io_source::signature;
  std::string format;         // "graph-model"
  std::string generated_by;   // "" when absent
  std::string converted_by;   // "" when absent
  int64_t weight_count = 0;   // weights filled into Const nodes
  int64_t weight_bytes = 0;   // bytes of all shards
};

// Reads `model_json_path` and its shards (paths relative to its folder).
status_or<tfjs_model> read_tfjs_model(const std::string& model_json_path);

}  // namespace caflow::tf
