// save_saved_model (graph/tf/saved_model.hpp): a frozen graph as a TF1 SavedModel.
#include <filesystem>

#include "graph/ir/checkpoint_file.hpp"
#include "graph/ir/node_signature.hpp"
#include "graph/ir/op_def.hpp"
#include "graph/tf/graph_def_export.hpp"
#include "graph/tf/proto/saved_model.pb.h"
#include "graph/tf/saved_model.hpp"
#include "graph/tf/tensor_bundle.hpp"
#include "graph/tf/tensor_proto.hpp"

namespace caflow::tf {
namespace {

namespace fs = std::filesystem;

// A tensor's dtype as its node's op says, for outputs a GraphDef's sinks left unknown.
status_or<dtype> dtype_of(const graph_def& g, const model_tensor& t) {
  if (t.type != dtype::invalid) return t.type;
  for (const node_def& n : g.nodes) {
    if (n.name != t.node) continue;
    const op_def* op = op_registry::global().lookup(n.op);
    if (op == nullptr) return errors::not_found("op '", n.op, "' of node '", n.name, "' is not registered");
    CAFLOW_ASSIGN_OR_RETURN(node_signature sig, resolve_signature(*op, n));
    if (t.port < 0 || t.port >= static_cast<int>(sig.output_types.size()))
      return errors::invalid_argument("node '", n.name, "' has no output ", t.port);
    return sig.output_types[static_cast<size_t>(t.port)];
  }
  return errors::not_found("no node '", t.node, "' in the graph");
}

status add_tensor_info(const graph_def& g, const model_tensor& t,
                       google::protobuf::Map<std::string, tfproto::TensorInfo>* into) {
  CAFLOW_ASSIGN_OR_RETURN(dtype type, dtype_of(g, t));
  const std::string key = t.port == 0 ? t.node : t.node + "_" + std::to_string(t.port);
  tfproto::TensorInfo& info = (*into)[key];
  info.set_name(t.node + ":" + std::to_string(t.port));
  info.set_dtype(static_cast<tfproto::DataType>(tf_type_of(type)));
  shape_to_proto(t.shape, info.mutable_tensor_shape());
  return {};
}

}  // namespace

status save_saved_model(const std::string& dir, const imported_model& model) {
  for (const node_def& n : model.graph.nodes)
    if (n.op == "VariableV2" || n.op == "VarHandleOp" || n.op == "Variable")
      return errors::unimplemented(dir, ": node '", n.name, "' is a variable; save_saved_model writes "
                                   "frozen graphs (weights as Const nodes)");
  if (model.outputs.empty()) return errors::invalid_argument(dir, ": the model has no outputs");
  tfproto::SavedModel saved;
  saved.set_saved_model_schema_version(1);
  tfproto::MetaGraphDef* meta = saved.add_meta_graphs();
  meta->mutable_meta_info_def()->add_tags("serve");
  CAFLOW_RETURN_IF_ERROR(graph_def_to_proto(model.graph, meta->mutable_graph_def()));
  tfproto::SignatureDef& sig = (*meta->mutable_signature_def())["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  for (const model_tensor& t : model.inputs) CAFLOW_RETURN_IF_ERROR(add_tensor_info(model.graph, t, sig.mutable_inputs()));
  for (const model_tensor& t : model.outputs) CAFLOW_RETURN_IF_ERROR(add_tensor_info(model.graph, t, sig.mutable_outputs()));

  std::error_code ec;
  fs::create_directories(fs::path(dir) / "variables", ec);
  if (ec) return errors::not_found(dir, ": cannot create: ", ec.message());
  // No variables (the weights are constants), but the folder holds a bundle as TF Serving expects.
  CAFLOW_RETURN_IF_ERROR(write_bundle((fs::path(dir) / "variables" / "variables").string(), {}));
  std::string bytes;
  if (!saved.SerializeToString(&bytes)) return errors::internal(dir, ": the SavedModel does not serialize");
  return checkpoint::write_file_atomically((fs::path(dir) / "saved_model.pb").string(), bytes);
}

}  // namespace caflow::tf
