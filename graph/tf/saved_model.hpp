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
//     initializers and the other signatures' nodes go (they restore or assign variables a
//     frozen graph holds constant, or parse inputs the signature's placeholders replace);
//   - every variable that is left (VariableV2, Variable, VarHandleOp) becomes a Const holding
//     its value from the checkpoint variables/variables (graph/tf/tensor_bundle.hpp), and each
//     ReadVariableOp of a VarHandleOp becomes an Identity;
//   - the result goes through the GraphDef importer (graph/tf/graph_def_import.hpp), with its
//     checks and errors.
// Errors name the file and the culprit: tags no meta graph has (listing those there are), a
// signature that is not there (listing them), a variable the checkpoint lacks, a missing
// variables/variables.index or data shard (NOT_FOUND naming it).
#include <map>
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

// Writes `model` as a TF1 SavedModel in `dir` (a version folder, e.g. models/face/1, as TF
// Serving lays them out): saved_model.pb with one meta graph tagged {"serve"} whose
// "serving_default" predict signature maps the model's inputs and outputs (keyed by node name),
// and variables/variables, a tensor bundle holding `variables` (by variable node name). A graph
// with VariableV2 nodes needs a value for each; the meta graph then also holds TF's Saver
// subgraph (SaveV2/RestoreV2 on save/Const, restore_all) and the SaverDef naming it, which is
// what TensorFlow runs to restore them. A frozen graph (weights as Consts, as every model
// caflow imports) has none, and its bundle is empty. Refused by name: a variable without a
// value or with a value of another dtype, a value for no variable, resource variables.
status save_saved_model(const std::string& dir, const imported_model& model,
                        const std::map<std::string, tensor>& variables = {});

// Whether `path` is a SavedModel folder (it holds saved_model.pb).
bool is_saved_model_dir(const std::string& path);

}  // namespace caflow::tf
