#pragma once
// A TensorFlow 1.x SavedModel (a folder holding saved_model.pb and variables/) as a frozen
// caflow graph_def, ready for session::extend.
//
//   auto m = tf::load_saved_model("half_plus_two/00000123");        // tags {"serve"}
//   session sess;
//   sess.extend(m->model.graph);
//   sess.run_named({{"x", x}}, {"y"});
//
// The loader picks the meta graph whose tags equal the requested set and one of its signatures
// ("serving_default", else the first by name, unless one is asked for), then builds the graph
// that signature runs:
//   - each signature input becomes a Placeholder of the signature's dtype and shape, so what
//     computed it before (a serving graph parses tf.Example strings into it) is cut away;
//   - only what the signature's outputs need is kept: the saver's save and restore nodes, the
//     initializers and the other signatures' nodes go (they work on DT_STRING tensors, which
//     caflow does not have, or assign variables a frozen graph holds constant);
//   - every variable that is left (VariableV2, Variable, VarHandleOp) becomes a Const holding
//     its value from the checkpoint variables/variables (graph/tf/tensor_bundle.hpp), and each
//     ReadVariableOp of a VarHandleOp becomes an Identity;
//   - the result goes through the GraphDef importer (graph/tf/graph_def_import.hpp), with its
//     checks and errors.
// Errors name the file and the culprit: tags no meta graph has (listing those there are), a
// signature that is not there (listing them), a variable the checkpoint lacks, a missing
// variables/variables.index or data shard (NOT_FOUND naming it).
#include <set>
#include <string>
#include <vector>

#include "graph/tf/model_import.hpp"

namespace caflow::tf {

// One input or output of a signature: its key there ("x") and the tensor ("x:0").
struct signature_tensor {
  std::string key;
  model_tensor tensor;
};

struct signature_info {
  std::string key;          // "serving_default"
  std::string method_name;  // "tensorflow/serving/predict"
  std::vector<signature_tensor> inputs;   // by key
  std::vector<signature_tensor> outputs;  // by key
};

struct saved_model_options {
  std::set<std::string> tags = {"serve"};
  // The signature the graph is built for; empty: "serving_default", else the first by key.
  std::string signature;
};

struct saved_model {
  // The graph of the chosen signature, its inputs and outputs in key order; format
  // "TF1 SavedModel", both sources io_source::signature.
  imported_model model;
  std::string signature;                  // the chosen one's key
  std::vector<signature_info> signatures;  // all of the meta graph's, by key
  std::vector<std::string> tags;          // the meta graph's
  std::string tensorflow_version;         // as the meta graph records it; "" when absent
  int64_t variables_restored = 0;         // variables turned into Consts
};

// `dir` holds saved_model.pb.
status_or<saved_model> load_saved_model(const std::string& dir, const saved_model_options& = {});

// Writes `model`, a frozen graph (its weights are Const nodes, as every model caflow imports),
// as a TF1 SavedModel in `dir` (a version folder, e.g. models/face/1, as TF Serving lays them
// out): saved_model.pb with one meta graph tagged {"serve"} whose "serving_default" predict
// signature maps the model's inputs and outputs (keyed by node name), and variables/ holding an
// empty bundle. A graph with variables is refused by name (UNIMPLEMENTED).
status save_saved_model(const std::string& dir, const imported_model& model);

// Whether `path` is a SavedModel folder (it holds saved_model.pb).
bool is_saved_model_dir(const std::string& path);

}  // namespace caflow::tf
