#include "graph/tf/saved_model.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "graph/tf/proto/saved_model.pb.h"
#include "graph/tf/tensor_bundle.hpp"
#include "graph/tf/tensor_proto.hpp"
#include "graph/tf/tf_dtype.hpp"
#include "graph/tf/wire_diagnosis.hpp"

namespace caflow::tf {
namespace {

namespace fs = std::filesystem;
namespace tfp = ::caflow::tfproto;

constexpr const char* default_signature = "serving_default";

// "{serve, gpu}" (sorted), "{}" for none.
template <class Tags>
std::string tag_set_text(const Tags& tags) {
  std::vector<std::string> sorted(tags.begin(), tags.end());
  std::sort(sorted.begin(), sorted.end());
  std::string out = "{";
  for (size_t i = 0; i < sorted.size(); ++i) out += (i ? ", " : "") + sorted[i];
  return out + "}";
}

status_or<tfp::SavedModel> read_saved_model_proto(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::not_found(path, ": cannot open: ", std::strerror(errno));
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  if (in.bad()) return errors::data_loss(path, ": read failed: ", std::strerror(errno));
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    return errors::invalid_argument(path, ": ", bytes.size(),
                                    " bytes, past protobuf's 2 GiB limit for one message");
  tfp::SavedModel proto;
  if (proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return proto;
  std::string why = diagnose_wire_bytes(bytes, *tfp::SavedModel::descriptor());
  if (why.empty()) why = "not a SavedModel in protobuf's binary format (libprotobuf refused it)";
  return errors::invalid_argument(path, ": ", why);
}

status_or<const tfp::MetaGraphDef*> pick_meta_graph(const tfp::SavedModel& sm,
                                                    const std::set<std::string>& tags,
                                                    const std::string& origin) {
  std::vector<std::string> available;
  for (const tfp::MetaGraphDef& mg : sm.meta_graphs()) {
    const auto& t = mg.meta_info_def().tags();
    if (std::set<std::string>(t.begin(), t.end()) == tags) return &mg;
    available.push_back(tag_set_text(t));
  }
  std::string list;
  for (const std::string& a : available) list += (list.empty() ? "" : ", ") + a;
  return errors::not_found(origin, ": no meta graph has the tags ", tag_set_text(tags),
                           available.empty() ? "; it holds no meta graph" : "; the tag sets there are ",
                           list);
}

// A signature's entry as a model_tensor. A type caflow lacks is left invalid here (the
// signature may be one the graph is not built for); the chosen signature's inputs check it.
status_or<signature_tensor> signature_entry(const std::string& key, const tfp::TensorInfo& info,
                                            const std::string& where) {
  if (info.encoding_case() != tfp::TensorInfo::kName)
    return errors::unimplemented(where, ": a sparse or composite tensor; caflow feeds and "
                                 "fetches dense tensors named by `name` only");
  signature_tensor out{key, {}};
  model_tensor& t = out.tensor;
  t.name = info.name();
  auto ref = parse_input(t.name);
  if (!ref.ok() || ref->is_control())
    return errors::invalid_argument(where, ": '", t.name, "' is not a tensor name");
  t.node = std::string(ref->node);
  t.port = ref->port;
  if (auto type = dtype_from_tf(info.dtype()); type.ok()) t.type = *type;
  if (info.has_tensor_shape()) {
    CAFLOW_ASSIGN_OR_RETURN(t.shape, shape_from_proto(info.tensor_shape(), where + ": tensor_shape"));
  }
  return out;
}

template <class Map>
std::vector<std::string> sorted_keys(const Map& m) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  return keys;
}

status_or<signature_info> read_signature(const std::string& key, const tfp::SignatureDef& def,
                                         const std::string& origin) {
  signature_info out{key, def.method_name(), {}, {}};
  const std::string where = origin + ": signature '" + key + "'";
  for (const std::string& k : sorted_keys(def.inputs())) {
    CAFLOW_ASSIGN_OR_RETURN(auto t, signature_entry(k, def.inputs().at(k), where + " input '" + k + "'"));
    out.inputs.push_back(std::move(t));
  }
  for (const std::string& k : sorted_keys(def.outputs())) {
    CAFLOW_ASSIGN_OR_RETURN(auto t, signature_entry(k, def.outputs().at(k), where + " output '" + k + "'"));
    out.outputs.push_back(std::move(t));
  }
  return out;
}

bool is_variable(const std::string& op) {
  return op == "VariableV2" || op == "Variable" || op == "VarHandleOp";
}

// The checkpoint key of a variable node: its name, which is what TensorFlow 1.x's saver writes,
// or for a resource variable the name of the resource it shares.
std::string variable_key(const tfp::NodeDef& n) {
  if (n.op() == "VarHandleOp")
    if (auto s = n.attr().find("shared_name"); s != n.attr().end() && !s->second.s().empty())
      return s->second.s();
  return n.name();
}

// Builds the signature's graph: its inputs cut into Placeholders, only what its outputs need,
// variables frozen from the checkpoint.
class freezer {
 public:
  freezer(const tfp::GraphDef& graph, std::string origin, std::string variables_prefix)
      : graph_(graph), origin_(std::move(origin)), prefix_(std::move(variables_prefix)) {
    for (int i = 0; i < graph_.node_size(); ++i) by_name_.emplace(graph_.node(i).name(), i);
  }

  status_or<tfp::GraphDef> run(const signature_info& sig, const tfp::SignatureDef& def,
                               int64_t* restored) {
    CAFLOW_RETURN_IF_ERROR(mark_inputs(sig, def));
    CAFLOW_RETURN_IF_ERROR(mark_needed(sig));
    tfp::GraphDef out;
    *out.mutable_versions() = graph_.versions();
    std::set<std::string> ops;
    for (int i = 0; i < graph_.node_size(); ++i) {
      if (!needed_[i]) continue;
      const tfp::NodeDef& n = graph_.node(i);
      tfp::NodeDef* m = out.add_node();
      if (auto cut = cuts_.find(n.name()); cut != cuts_.end()) {
        CAFLOW_RETURN_IF_ERROR(placeholder(n, *cut->second, m));
      } else if (is_variable(n.op())) {
        CAFLOW_RETURN_IF_ERROR(frozen_variable(n, m));
        ++*restored;
      } else if (n.op() == "ReadVariableOp" && reads_frozen_handle(n)) {
        // The handle is now the value itself.
        *m = n;
        m->set_op("Identity");
        m->mutable_attr()->clear();
        if (auto t = n.attr().find("dtype"); t != n.attr().end()) (*m->mutable_attr())["T"] = t->second;
      } else {
        *m = n;
      }
      colocate_with_dropped(m);
      ops.insert(m->op());
    }
    // The library goes along only when a kept node calls one of its functions (the importer
    // refuses any library, naming the functions); functions only dropped nodes called go too.
    for (const tfp::FunctionDef& f : graph_.library().function())
      if (ops.count(f.signature().name())) {
        *out.mutable_library() = graph_.library();
        break;
      }
    return out;
  }

 private:
  status mark_inputs(const signature_info& sig, const tfp::SignatureDef& def) {
    for (const signature_tensor& in : sig.inputs) {
      const std::string where = origin_ + ": signature '" + sig.key + "' input '" + in.key + "'";
      if (!by_name_.count(in.tensor.node))
        return errors::not_found(where, ": tensor '", in.tensor.name, "' names node '",
                                 in.tensor.node, "', which the graph does not have");
      if (in.tensor.port != 0)
        return errors::unimplemented(where, ": tensor '", in.tensor.name, "' is output ",
                                     in.tensor.port, " of its node; caflow feeds a signature "
                                     "input by making its node a Placeholder, which has one output");
      if (in.tensor.type == dtype::invalid)
        return errors::unimplemented(where, " is ", tf_type_name(def.inputs().at(in.key).dtype()),
                                     ", which caflow has no dtype for");
      cuts_.emplace(in.tensor.node, &def.inputs().at(in.key));
    }
    return ok_status();
  }

  status mark_needed(const signature_info& sig) {
    needed_.assign(graph_.node_size(), false);
    std::vector<int> stack;
    for (const signature_tensor& out : sig.outputs) {
      auto it = by_name_.find(out.tensor.node);
      if (it == by_name_.end())
        return errors::not_found(origin_, ": signature '", sig.key, "' output '", out.key,
                                 "': tensor '", out.tensor.name, "' names node '",
                                 out.tensor.node, "', which the graph does not have");
      stack.push_back(it->second);
    }
    // A signature input is fed even when no output needs it, so it stays in the graph.
    for (const auto& [node, info] : cuts_) stack.push_back(by_name_.at(node));
    while (!stack.empty()) {
      const int i = stack.back();
      stack.pop_back();
      if (needed_[i]) continue;
      needed_[i] = true;
      const tfp::NodeDef& n = graph_.node(i);
      if (cuts_.count(n.name())) continue;  // fed: what computed it is not needed
      for (const std::string& input : n.input()) {
        auto ref = parse_input(input);
        if (!ref.ok()) return ref.get_status().with_context(origin_ + ": node '" + n.name() + "'");
        auto it = by_name_.find(std::string(ref->node));
        if (it == by_name_.end())
          return errors::not_found(origin_, ": node '", n.name(), "' has input '", input,
                                   "', which the graph does not have");
        stack.push_back(it->second);
      }
    }
    return ok_status();
  }

  status placeholder(const tfp::NodeDef& n, const tfp::TensorInfo& info, tfp::NodeDef* m) {
    if (n.op() == "Placeholder") {
      *m = n;
      return ok_status();
    }
    m->set_name(n.name());
    m->set_op("Placeholder");
    m->set_device(n.device());
    (*m->mutable_attr())["dtype"].set_type(info.dtype());
    if (info.has_tensor_shape())
      *(*m->mutable_attr())["shape"].mutable_shape() = info.tensor_shape();
    else
      (*m->mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
    return ok_status();
  }

  status frozen_variable(const tfp::NodeDef& n, tfp::NodeDef* m) {
    const std::string where = origin_ + ": variable '" + n.name() + "' (" + n.op() + ")";
    if (!bundle_) {
      auto opened = bundle_reader::open(prefix_);
      if (!opened.ok()) return opened.get_status().with_context(where);
      bundle_.emplace(std::move(*opened));
    }
    const std::string key = variable_key(n);
    if (!bundle_->contains(key))
      return errors::not_found(where, ": the checkpoint ", bundle_index_path(prefix_),
                               " has no tensor '", key, "'");
    const bundle_entry& e = bundle_->entries().find(key)->second;
    if (auto t = n.attr().find("dtype"); t != n.attr().end() && t->second.type() != e.type)
      return errors::invalid_argument(where, " is ", tf_type_name(t->second.type()),
                                      " but the checkpoint holds ", tf_type_name(e.type));
    if (auto s = n.attr().find("shape"); s != n.attr().end() && s->second.has_shape()) {
      auto declared = shape_from_proto(s->second.shape(), where + ": attr 'shape'");
      if (declared.ok() && !declared->compatible_with(e.shape))
        return errors::invalid_argument(where, " has shape ", declared->to_string(),
                                        " but the checkpoint holds ", e.shape.to_string());
    }
    auto value = bundle_->read(key);
    if (!value.ok()) return value.get_status().with_context(where);
    m->set_name(n.name());
    m->set_op("Const");
    m->set_device(n.device());
    tfp::AttrValue& v = (*m->mutable_attr())["value"];
    CAFLOW_RETURN_IF_ERROR(tensor_to_proto(*value, v.mutable_tensor()));
    (*m->mutable_attr())["dtype"].set_type(v.tensor().dtype());
    return ok_status();
  }

  // A kept node colocated with a dropped one (a read with its initializer, say) would send the
  // placer after a node the graph lacks: the class goes, and the node asks for that node's
  // device instead when it names none, as pruning a run does.
  void colocate_with_dropped(tfp::NodeDef* m) const {
    auto cls = m->mutable_attr()->find("_class");
    if (cls == m->mutable_attr()->end() || !cls->second.has_list()) return;
    auto* classes = cls->second.mutable_list()->mutable_s();
    for (int i = classes->size() - 1; i >= 0; --i) {
      const std::string& c = classes->Get(i);
      if (!c.starts_with("loc:@")) continue;
      auto target = by_name_.find(c.substr(5));
      if (target == by_name_.end() || needed_[target->second]) continue;
      if (m->device().empty()) m->set_device(graph_.node(target->second).device());
      classes->DeleteSubrange(i, 1);
    }
    if (classes->empty()) m->mutable_attr()->erase(cls);
  }

  // Whether `n`'s handle (input 0) comes from a VarHandleOp this freezer turned into a Const.
  bool reads_frozen_handle(const tfp::NodeDef& n) const {
    if (n.input_size() == 0) return false;
    auto ref = parse_input(n.input(0));
    if (!ref.ok()) return false;
    auto it = by_name_.find(std::string(ref->node));
    return it != by_name_.end() && graph_.node(it->second).op() == "VarHandleOp" &&
           needed_[it->second];
  }

 private:
  const tfp::GraphDef& graph_;
  std::string origin_;
  std::string prefix_;
  std::map<std::string, int> by_name_;
  std::map<std::string, const tfp::TensorInfo*> cuts_;  // node -> the signature input fed there
  std::vector<bool> needed_;
  std::optional<bundle_reader> bundle_;  // opened by the first variable kept
};

}  // namespace

bool is_saved_model_dir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / "saved_model.pb", ec);
}

status_or<saved_model> load_saved_model(const std::string& dir, const saved_model_options& options) {
  const std::string origin = (fs::path(dir) / "saved_model.pb").string();
  CAFLOW_ASSIGN_OR_RETURN(tfp::SavedModel proto, read_saved_model_proto(origin));
  CAFLOW_ASSIGN_OR_RETURN(const tfp::MetaGraphDef* mg, pick_meta_graph(proto, options.tags, origin));

  saved_model out;
  out.tags.assign(mg->meta_info_def().tags().begin(), mg->meta_info_def().tags().end());
  out.tensorflow_version = mg->meta_info_def().tensorflow_version();
  const std::vector<std::string> keys = sorted_keys(mg->signature_def());
  for (const std::string& key : keys) {
    CAFLOW_ASSIGN_OR_RETURN(auto sig, read_signature(key, mg->signature_def().at(key), origin));
    out.signatures.push_back(std::move(sig));
  }
  if (out.signatures.empty())
    return errors::not_found(origin, ": the meta graph ", tag_set_text(out.tags),
                             " has no signature, so nothing says what to feed and fetch");
  std::string wanted = options.signature;
  if (wanted.empty())
    wanted = mg->signature_def().count(default_signature) ? default_signature : keys.front();
  auto chosen = std::find_if(out.signatures.begin(), out.signatures.end(),
                             [&](const signature_info& s) { return s.key == wanted; });
  if (chosen == out.signatures.end()) {
    std::string list;
    for (const std::string& k : keys) list += (list.empty() ? "'" : ", '") + k + "'";
    return errors::not_found(origin, ": no signature '", wanted, "'; the meta graph ",
                             tag_set_text(out.tags), " has ", list);
  }
  out.signature = chosen->key;
  if (chosen->outputs.empty())
    return errors::invalid_argument(origin, ": signature '", chosen->key, "' has no outputs");

  const std::string prefix = (fs::path(dir) / "variables" / "variables").string();
  freezer f(mg->graph_def(), origin, prefix);
  CAFLOW_ASSIGN_OR_RETURN(tfp::GraphDef frozen, f.run(*chosen, mg->signature_def().at(chosen->key),
                                                      &out.variables_restored));
  CAFLOW_ASSIGN_OR_RETURN(out.model.graph, graph_def_from_proto(frozen, origin));

  for (const signature_tensor& t : chosen->inputs) out.model.inputs.push_back(t.tensor);
  for (const signature_tensor& t : chosen->outputs) out.model.outputs.push_back(t.tensor);
  out.model.inputs_source = out.model.outputs_source = io_source::signature;
  out.model.format = "TF1 SavedModel";
  return out;
}

}  // namespace caflow::tf
