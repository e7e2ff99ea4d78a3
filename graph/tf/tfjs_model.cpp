#include "graph/tf/tfjs_model.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "graph/tf/graph_def_import.hpp"
#include "graph/tf/model_io.hpp"
#include "graph/tf/tfjs_weights.hpp"

namespace caflow::tf {
namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

status_or<std::string> read_file(const fs::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::not_found(what, " '", path.string(), "' cannot be opened");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return errors::data_loss(what, " '", path.string(), "' cannot be read");
  return std::move(bytes).str();
}

status type_error(const std::string& where, const char* expected, const json& got) {
  std::string text = got.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return errors::invalid_argument(where, ": expected ", expected, ", got ", got.type_name(), " ",
                                  text);
}

// obj[key] when it is a string, "" when absent; `field` names it in the error.
status_or<std::string> optional_string(const json& obj, const char* key, const std::string& field) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::string();
  if (!it->is_string()) return type_error(field, "a string", *it);
  return it->get<std::string>();
}

// A TensorShapeProto in protobuf's JSON form: {"dim": [{"size": "3"}, ...]} (sizes are int64,
// so strings; numbers are accepted too), {"unknownRank": true}, or {} for a scalar.
status_or<partial_shape> shape_from_json(const json& s, const std::string& where) {
  if (!s.is_object()) return type_error(where, "an object", s);
  if (auto u = s.find("unknownRank"); u != s.end() && u->is_boolean() && u->get<bool>())
    return partial_shape::unknown();
  std::vector<int64_t> dims;
  if (auto d = s.find("dim"); d != s.end()) {
    if (!d->is_array()) return type_error(where + ".dim", "an array", *d);
    for (size_t i = 0; i < d->size(); ++i) {
      const json& dim = (*d)[i];
      const std::string at = where + ".dim[" + std::to_string(i) + "].size";
      if (!dim.is_object()) return type_error(where + ".dim[" + std::to_string(i) + "]", "an object", dim);
      auto size = dim.find("size");
      if (size == dim.end()) {
        dims.push_back(0);  // proto3 JSON leaves out a zero
        continue;
      }
      if (size->is_number_integer()) {
        dims.push_back(size->get<int64_t>());
      } else if (size->is_string()) {
        const std::string text = size->get<std::string>();
        size_t used = 0;
        int64_t v = 0;
        try {
          v = std::stoll(text, &used);
        } catch (...) {
          used = 0;
        }
        if (used == 0 || used != text.size()) return type_error(at, "an integer", *size);
        dims.push_back(v);
      } else {
        return type_error(at, "an integer", *size);
      }
    }
  }
  auto shape = partial_shape::make(dims);
  if (!shape.ok()) return shape.get_status().with_context(where);
  return *shape;
}

// The Const nodes of modelTopology whose value the weights must give: those without a "value"
// attr, or whose value tensor has no content field (only dtype and tensorShape, as the TF.js
// converter writes every weight), with that declared shape when there is one.
status_or<std::map<std::string, std::optional<partial_shape>>> external_consts(
    const json& topology, const std::string& origin) {
  std::map<std::string, std::optional<partial_shape>> out;
  auto nodes = topology.find("node");
  if (nodes == topology.end()) return out;
  if (!nodes->is_array()) return type_error(origin + ": modelTopology.node", "an array", *nodes);
  for (size_t i = 0; i < nodes->size(); ++i) {
    const json& n = (*nodes)[i];
    const std::string where = origin + ": modelTopology.node[" + std::to_string(i) + "]";
    if (!n.is_object()) return type_error(where, "an object", n);
    auto op = n.find("op");
    auto name = n.find("name");
    if (op == n.end() || !op->is_string() || *op != "Const") continue;
    if (name == n.end() || !name->is_string()) return type_error(where + ".name", "a string", n.value("name", json()));
    const json* tensor = nullptr;
    if (auto attr = n.find("attr"); attr != n.end() && attr->is_object()) {
      if (auto value = attr->find("value"); value != attr->end() && value->is_object()) {
        if (auto t = value->find("tensor"); t != value->end() && t->is_object()) tensor = &*t;
      }
    }
    std::optional<partial_shape> declared;
    bool has_content = false;
    if (tensor != nullptr) {
      for (const auto& [key, v] : tensor->items()) {
        if (key == "tensorShape") {
          CAFLOW_ASSIGN_OR_RETURN(declared, shape_from_json(v, where + ".attr.value.tensor.tensorShape"));
        } else if (key != "dtype" && key != "versionNumber") {
          has_content = true;
        }
      }
    }
    if (!has_content) out.emplace(name->get<std::string>(), declared);
  }
  return out;
}

template <class From, class To>
tensor widen(const tensor& t) {
  tensor out(dtype_v<To>, t.shape());
  const From* in = t.data<From>();
  To* o = out.data<To>();
  for (int64_t i = 0; i < t.num_elements(); ++i) o[i] = static_cast<To>(in[i]);
  return out;
}

// The manifest's shard paths are file names relative to model.json; one that leaves the folder
// is refused rather than read.
status_or<fs::path> shard_path(const fs::path& dir, const std::string& p, const std::string& where) {
  const fs::path rel(p);
  if (rel.is_absolute()) return errors::invalid_argument(where, ": '", p, "' is an absolute path");
  for (const auto& part : rel)
    if (part == "..") return errors::invalid_argument(where, ": '", p, "' leaves the model's folder");
  return dir / rel;
}

status fill_weights(const json& model, const fs::path& path, const std::string& origin,
                    tfjs_model& out,
                    std::map<std::string, std::optional<partial_shape>> external) {
  std::map<std::string, node_def*> consts;
  for (node_def& n : out.graph.nodes)
    if (n.op == "Const") consts.emplace(n.name, &n);

  std::vector<tfjs_weight_group> groups;
  if (auto m = model.find("weightsManifest"); m != model.end() && !m->is_null()) {
    CAFLOW_ASSIGN_OR_RETURN(groups, parse_weights_manifest(m->dump(), origin));
  }
  std::set<std::string> filled;
  const fs::path dir = path.parent_path();
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string where = origin + ": weightsManifest[" + std::to_string(g) + "]";
    std::string bytes;
    std::vector<size_t> sizes;
    for (size_t i = 0; i < groups[g].paths.size(); ++i) {
      CAFLOW_ASSIGN_OR_RETURN(fs::path shard, shard_path(dir, groups[g].paths[i],
                                                         where + ".paths[" + std::to_string(i) + "]"));
      CAFLOW_ASSIGN_OR_RETURN(std::string part, read_file(shard, where + " shard"));
      sizes.push_back(part.size());
      bytes += part;
    }
    out.weight_bytes += static_cast<int64_t>(bytes.size());
    CAFLOW_ASSIGN_OR_RETURN(auto weights, decode_weight_group(groups[g], static_cast<int>(g), bytes,
                                                              sizes, origin));
    for (auto& [name, value] : weights) {
      const std::string wwhere = origin + ": weight '" + name + "'";
      auto it = consts.find(name);
      if (it == consts.end()) {
        const bool exists = std::any_of(out.graph.nodes.begin(), out.graph.nodes.end(),
                                        [&](const node_def& n) { return n.name == name; });
        return exists ? errors::invalid_argument(wwhere, " names a node that is not a Const")
                      : errors::invalid_argument(wwhere, " matches no Const node of modelTopology");
      }
      if (!filled.insert(name).second)
        return errors::invalid_argument(wwhere, " appears twice in weightsManifest");
      node_def& node = *it->second;
      if (auto t = node.attrs.find("dtype"); t != node.attrs.end() && t->second.holds<dtype>() &&
                                              t->second.get<dtype>() != value.type()) {
        // TF.js stores a float64 Const as float32 and an int64 one as int32 (its tensors have
        // no 64-bit types); widening back to the node's dtype is exact.
        const dtype want = t->second.get<dtype>();
        if (want == dtype::float64 && value.type() == dtype::float32) {
          value = widen<float, double>(value);
        } else if (want == dtype::int64 && value.type() == dtype::int32) {
          value = widen<int32_t, int64_t>(value);
        } else {
          return errors::invalid_argument(wwhere, " is ", dtype_name(value.type()), " but node '",
                                          name, "' has dtype ", dtype_name(want));
        }
      }
      if (auto e = external.find(name); e != external.end() && e->second &&
                                        !e->second->compatible_with(value.shape()))
        return errors::invalid_argument(wwhere, " has shape ", value.shape().to_string(),
                                        " but node '", name, "' declares ",
                                        e->second->to_string());
      node.attrs["value"] = std::move(value);
      ++out.weight_count;
    }
  }
  for (const auto& [name, declared] : external)
    if (!filled.count(name))
      return errors::invalid_argument(origin, ": Const node '", name,
                                      "' has no value, and no weight of weightsManifest gives it one");
  return ok_status();
}

status_or<model_tensor> signature_entry(const std::string& key, const json& v,
                                            const graph_def& g, const std::string& where) {
  if (!v.is_object()) return type_error(where, "an object", v);
  model_tensor info;
  CAFLOW_ASSIGN_OR_RETURN(info.name, optional_string(v, "name", where + ".name"));
  if (info.name.empty()) info.name = key;
  auto ref = parse_input(info.name);
  if (!ref.ok() || ref->is_control()) return errors::invalid_argument(where, ".name: '", info.name,
                                                                      "' is not a tensor name");
  info.node = std::string(ref->node);
  info.port = ref->port;
  if (std::none_of(g.nodes.begin(), g.nodes.end(), [&](const node_def& n) { return n.name == info.node; }))
    return errors::not_found(where, ": node '", info.node, "' is not in modelTopology");
  CAFLOW_ASSIGN_OR_RETURN(std::string type, optional_string(v, "dtype", where + ".dtype"));
  if (!type.empty()) {
    auto t = parse_dtype(type);
    if (!t.ok()) return t.get_status().with_context(where + ".dtype");
    info.type = *t;
  }
  if (auto s = v.find("tensorShape"); s != v.end()) {
    CAFLOW_ASSIGN_OR_RETURN(info.shape, shape_from_json(*s, where + ".tensorShape"));
  }
  return info;
}

// Reads signature.inputs or signature.outputs; an empty list when the signature lacks it.
status_or<std::vector<model_tensor>> signature_side(const json& model, const char* side,
                                                        const graph_def& g,
                                                        const std::string& origin) {
  std::vector<model_tensor> out;
  auto sig = model.find("signature");
  if (sig == model.end() || sig->is_null()) return out;
  if (!sig->is_object()) return type_error(origin + ": signature", "an object", *sig);
  auto entries = sig->find(side);
  if (entries == sig->end() || entries->is_null()) return out;
  const std::string where = origin + ": signature." + side;
  if (!entries->is_object()) return type_error(where, "an object", *entries);
  for (const auto& [key, v] : entries->items()) {
    CAFLOW_ASSIGN_OR_RETURN(auto info, signature_entry(key, v, g, where + "['" + key + "']"));
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace

status_or<tfjs_model> read_tfjs_model(const std::string& model_json_path) {
  const std::string& origin = model_json_path;
  CAFLOW_ASSIGN_OR_RETURN(std::string text, read_file(model_json_path, "TF.js model"));
  const json model = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (model.is_discarded()) return errors::invalid_argument(origin, ": not valid JSON");
  if (!model.is_object()) return type_error(origin, "a JSON object", model);

  tfjs_model out;
  CAFLOW_ASSIGN_OR_RETURN(out.format, optional_string(model, "format", origin + ": format"));
  CAFLOW_ASSIGN_OR_RETURN(out.generated_by, optional_string(model, "generatedBy", origin + ": generatedBy"));
  CAFLOW_ASSIGN_OR_RETURN(out.converted_by, optional_string(model, "convertedBy", origin + ": convertedBy"));
  if (!out.format.empty() && out.format != "graph-model")
    return errors::unimplemented(origin, ": format '", out.format,
                                 "': caflow reads TF.js graph models (format 'graph-model') only");
  auto topology = model.find("modelTopology");
  if (topology == model.end()) return errors::invalid_argument(origin, ": missing field 'modelTopology'");
  if (!topology->is_object()) return type_error(origin + ": modelTopology", "an object", *topology);
  if (!topology->contains("node"))
    return errors::unimplemented(origin, ": modelTopology has no 'node' list (a layers model?); "
                                 "caflow reads TF.js graph models only");

  CAFLOW_ASSIGN_OR_RETURN(auto external, external_consts(*topology, origin));
  import_options options;
  options.const_values_external = true;
  CAFLOW_ASSIGN_OR_RETURN(out.graph, read_graph_def(topology->dump(), graph_encoding::json, origin, options));
  CAFLOW_RETURN_IF_ERROR(fill_weights(model, fs::path(model_json_path), origin, out, std::move(external)));

  CAFLOW_ASSIGN_OR_RETURN(out.inputs, signature_side(model, "inputs", out.graph, origin));
  CAFLOW_ASSIGN_OR_RETURN(out.outputs, signature_side(model, "outputs", out.graph, origin));
  out.inputs_source = out.outputs_source = io_source::signature;
  if (out.inputs.empty()) {
    out.inputs = graph_inputs(out.graph);
    out.inputs_source = io_source::graph;
  }
  if (out.outputs.empty()) {
    out.outputs = graph_outputs(out.graph);
    out.outputs_source = io_source::graph;
  }
  return out;
}

}  // namespace caflow::tf
