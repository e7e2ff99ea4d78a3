// save_saved_model (graph/tf/saved_model.hpp): a frozen graph as a TF1 SavedModel.
#include <algorithm>
#include <filesystem>
#include <map>

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

bool is_variable(const node_def& n) { return n.op == "VariableV2" || n.op == "Variable"; }

tfproto::NodeDef* add_node(tfproto::GraphDef* g, const std::string& name, const std::string& op,
                           std::vector<std::string> inputs = {}) {
  tfproto::NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& in : inputs) n->add_input(std::move(in));
  return n;
}

void string_const(tfproto::GraphDef* g, const std::string& name, const std::vector<std::string>& values,
                  bool scalar) {
  tfproto::NodeDef* n = add_node(g, name, "Const");
  (*n->mutable_attr())["dtype"].set_type(tfproto::DT_STRING);
  tfproto::TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tfproto::DT_STRING);
  if (!scalar) t->mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(values.size()));
  for (const auto& v : values) t->add_string_val(v);
}

// TensorFlow 1.x's Saver subgraph (tf.compat.v1.train.Saver, V2 format, not sharded), in TF's
// own op signatures, and the SaverDef that names it: what TF Serving and tf.saved_model.loader
// run to restore the variables, feeding variables/variables to save/Const. caflow's own loader
// reads the bundle directly and never runs it.
void add_saver(tfproto::MetaGraphDef* meta, const std::vector<std::pair<std::string, dtype>>& vars) {
  tfproto::GraphDef* g = meta->mutable_graph_def();
  std::vector<std::string> names;
  for (const auto& [name, type] : vars) names.push_back(name);
  const std::vector<std::string> whole(vars.size(), "");
  string_const(g, "save/Const", {"model"}, true);
  for (const char* kind : {"SaveV2", "RestoreV2"}) {
    const std::string base = std::string("save/") + kind;
    string_const(g, base + "/tensor_names", names, false);
    string_const(g, base + "/shape_and_slices", whole, false);
    std::vector<std::string> inputs{"save/Const", base + "/tensor_names", base + "/shape_and_slices"};
    if (std::string(kind) == "SaveV2") inputs.insert(inputs.end(), names.begin(), names.end());
    tfproto::NodeDef* n = add_node(g, base, kind, inputs);
    auto* types = (*n->mutable_attr())["dtypes"].mutable_list();
    for (const auto& [name, type] : vars) types->add_type(static_cast<tfproto::DataType>(tf_type_of(type)));
  }
  tfproto::NodeDef* dep = add_node(g, "save/control_dependency", "Identity", {"save/Const", "^save/SaveV2"});
  (*dep->mutable_attr())["T"].set_type(tfproto::DT_STRING);
  (*dep->mutable_attr())["_class"].mutable_list()->add_s("loc:@save/Const");
  std::vector<std::string> assigns;
  for (size_t i = 0; i < vars.size(); ++i) {
    const std::string name = "save/Assign" + (i ? "_" + std::to_string(i) : std::string());
    tfproto::NodeDef* a = add_node(g, name, "Assign",
                                   {vars[i].first, "save/RestoreV2" + (i ? ":" + std::to_string(i) : std::string())});
    (*a->mutable_attr())["T"].set_type(static_cast<tfproto::DataType>(tf_type_of(vars[i].second)));
    (*a->mutable_attr())["use_locking"].set_b(true);
    (*a->mutable_attr())["validate_shape"].set_b(true);
    assigns.push_back("^" + name);
  }
  add_node(g, "save/restore_all", "NoOp", assigns);
  tfproto::SaverDef* saver = meta->mutable_saver_def();
  saver->set_filename_tensor_name("save/Const:0");
  saver->set_save_tensor_name("save/control_dependency:0");
  saver->set_restore_op_name("save/restore_all");
  saver->set_max_to_keep(5);
  saver->set_keep_checkpoint_every_n_hours(10000.0f);
  saver->set_version(tfproto::SaverDef::V2);
}

}  // namespace

status save_saved_model(const std::string& dir, const imported_model& model,
                        const std::map<std::string, tensor>& variables) {
  // Every variable node needs its value, and every value a variable of its dtype and shape.
  std::vector<std::pair<std::string, dtype>> vars;
  for (const node_def& n : model.graph.nodes) {
    if (n.op == "VarHandleOp")
      return errors::unimplemented(dir, ": node '", n.name, "' is a resource variable (VarHandleOp); "
                                   "save_saved_model writes TF1 reference variables (VariableV2)");
    if (!is_variable(n)) continue;
    auto v = variables.find(n.name);
    if (v == variables.end())
      return errors::invalid_argument(dir, ": variable '", n.name, "' has no value to save");
    dtype declared = dtype::invalid;
    if (auto a = n.attrs.find("dtype"); a != n.attrs.end() && a->second.holds<dtype>())
      declared = a->second.get<dtype>();
    if (v->second.type() != declared)
      return errors::invalid_argument(dir, ": the value of variable '", n.name, "' is ",
                                      dtype_name(v->second.type()), ", the variable ", dtype_name(declared));
    vars.emplace_back(n.name, declared);
  }
  for (const auto& [name, value] : variables)
    if (std::none_of(vars.begin(), vars.end(), [&](const auto& v) { return v.first == name; }))
      return errors::invalid_argument(dir, ": a value is given for '", name,
                                      "', which is not a variable of the graph");
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
  if (!vars.empty()) add_saver(meta, vars);

  std::error_code ec;
  fs::create_directories(fs::path(dir) / "variables", ec);
  if (ec) return errors::not_found(dir, ": cannot create: ", ec.message());
  // A frozen graph has none, but the folder holds a bundle as TF Serving expects.
  CAFLOW_RETURN_IF_ERROR(write_bundle((fs::path(dir) / "variables" / "variables").string(), variables));
  std::string bytes;
  if (!saved.SerializeToString(&bytes)) return errors::internal(dir, ": the SavedModel does not serialize");
  return checkpoint::write_file_atomically((fs::path(dir) / "saved_model.pb").string(), bytes);
}

}  // namespace caflow::tf
