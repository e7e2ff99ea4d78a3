#include "graph/tf/graph_def_import.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include <google/protobuf/stubs/common.h>

#include "graph/ir/op_def.hpp"
#include "graph/tf/attr_convert.hpp"
#include "graph/tf/dropped_attrs.hpp"
#include "graph/tf/graph_def_parse.hpp"
#include "graph/tf/proto/graph.pb.h"

namespace caflow::tf {
namespace {

namespace tfp = ::caflow::tfproto;

// "'a', 'b' and 'c'"
std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t k = 0; k < names.size(); ++k) {
    if (k) out += k + 1 == names.size() ? " and " : ", ";
    out += "'" + names[k] + "'";
  }
  return out;
}

status refuse_library(const tfp::FunctionDefLibrary& lib, const std::string& origin) {
  if (lib.function_size() == 0 && lib.gradient_size() == 0) return ok_status();
  std::vector<std::string> functions, gradients;
  for (const auto& f : lib.function()) functions.push_back(f.signature().name());
  for (const auto& g : lib.gradient()) gradients.push_back(g.function_name());
  std::string what = functions.empty() ? "" : errors::concat("functions ", quoted_list(functions));
  if (!gradients.empty())
    what += errors::concat(what.empty() ? "" : " and ", "gradients of ", quoted_list(gradients));
  return errors::unimplemented(origin, ": the graph's function library holds ", what,
                               "; caflow runs no TensorFlow functions (freeze or inline them "
                               "into the graph first)");
}

// Text and JSON parsers let any bytes into a string field; the binary format (and TensorFlow)
// requires UTF-8 there, so a graph that could not be written back is refused here.
status check_utf8(const tfp::NodeDef& n, int k, const std::string& origin) {
  const auto valid = [](const std::string& s) {
    return google::protobuf::internal::IsStructurallyValidUTF8(s.data(), static_cast<int>(s.size()));
  };
  const auto bad = [&](const std::string& field) {
    return errors::invalid_argument(origin, ": node[", k, "].", field, " is not UTF-8");
  };
  if (!valid(n.name())) return bad("name");
  if (!valid(n.op())) return bad("op");
  if (!valid(n.device())) return bad("device");
  for (int i = 0; i < n.input_size(); ++i)
    if (!valid(n.input(i))) return bad(errors::concat("input[", i, "]"));
  for (const auto& [key, value] : n.attr())
    if (!valid(key)) return bad("attr key");
  return ok_status();
}

// One error for every op caflow lacks, each with the nodes that use it.
status refuse_missing_ops(const tfp::GraphDef& proto, const std::string& origin) {
  std::map<std::string, std::vector<std::string>> missing;
  for (int k = 0; k < proto.node_size(); ++k) {
    const auto& n = proto.node(k);
    CAFLOW_RETURN_IF_ERROR(check_utf8(n, k, origin));
    if (n.op().empty())
      return errors::invalid_argument(origin, ": node[", k, "] '", n.name(), "' has no op");
    if (!op_registry::global().lookup(n.op())) missing[n.op()].push_back(n.name());
  }
  if (missing.empty()) return ok_status();
  std::string list;
  for (const auto& [op, nodes] : missing)
    list += errors::concat(list.empty() ? "" : "; ", op, " (", nodes.size() == 1 ? "node " : "nodes ",
                           quoted_list(nodes), ")");
  return errors::unimplemented(origin, ": caflow lacks ", missing.size(),
                               missing.size() == 1 ? " op the graph uses: " : " ops the graph uses: ",
                               list);
}

std::string declared_attrs(const op_def& op) {
  std::string out;
  for (const auto& a : op.attrs) out += (out.empty() ? "" : ", ") + a.name;
  return out.empty() ? "none" : out;
}

// An attr the op does not declare: dropped, kept, or an error (graph/tf/dropped_attrs.hpp).
status undeclared_attr(const op_def& op, const std::string& name, const tfp::AttrValue& value,
                       const std::string& where, node_def* out) {
  const drop_rule rule = rule_for_undeclared(op.name, name);
  switch (rule.verdict) {
    case drop_verdict::drop: return ok_status();
    case drop_verdict::keep: {
      CAFLOW_ASSIGN_OR_RETURN(attr_value v, attr_from_proto(value, nullptr, where));
      out->attrs[name] = std::move(v);
      return ok_status();
    }
    case drop_verdict::drop_if_type:
      if (value.value_case() == tfp::AttrValue::kType) return ok_status();
      return errors::invalid_argument(where, ": is not an attr of caflow's op ", op.name,
                                      " (its attrs: ", declared_attrs(op),
                                      "), and dropped only when it holds a type");
    case drop_verdict::drop_if_default: {
      attr_def as_default;
      as_default.name = name;
      as_default.type = rule.defaults.front().type();
      auto v = attr_from_proto(value, &as_default, where);
      if (v.ok() && std::find(rule.defaults.begin(), rule.defaults.end(), *v) != rule.defaults.end())
        return ok_status();
      std::string defaults;
      for (const auto& d : rule.defaults) defaults += (defaults.empty() ? "" : " or ") + d.to_string();
      return errors::invalid_argument(
          where, ": holds ", v.ok() ? v->to_string() : "a value of another kind",
          ", but caflow's op ", op.name, " implements only TensorFlow's default ", defaults,
          " (it does not declare the attr)");
    }
    case drop_verdict::unknown: break;
  }
  return errors::invalid_argument(where, ": is not an attr of caflow's op ", op.name,
                                  " (its attrs: ", declared_attrs(op), ")");
}

status_or<node_def> convert_node(const tfp::NodeDef& n, const op_def& op, const std::string& origin,
                                 const import_options& options) {
  const std::string where = errors::concat(origin, ": node '", n.name(), "' (op ", n.op(), ")");
  node_def out;
  out.name = n.name();
  out.op = n.op();
  out.device = n.device();
  for (int k = 0; k < n.input_size(); ++k) {
    auto ref = parse_input(n.input(k));
    if (!ref.ok()) return ref.get_status().with_context(errors::concat(where, ": input ", k));
    out.inputs.push_back(n.input(k));
  }
  // Sorted, so that the first error is the same on every run (a protobuf map has no order).
  std::vector<std::string> names;
  for (const auto& [name, value] : n.attr()) names.push_back(name);
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    const tfp::AttrValue& value = n.attr().at(name);
    const std::string attr_where = errors::concat(where, " attr '", name, "'");
    if (const attr_def* declared = op.find_attr(name)) {
      CAFLOW_ASSIGN_OR_RETURN(attr_value v, attr_from_proto(value, declared, attr_where));
      out.attrs[name] = std::move(v);
    } else {
      CAFLOW_RETURN_IF_ERROR(undeclared_attr(op, name, value, attr_where, &out));
    }
  }
  for (const auto& a : op.attrs) {
    if (a.default_value || out.attrs.count(a.name)) continue;
    if (options.const_values_external && a.name == op.constant_value_attr) continue;
    return errors::invalid_argument(where, ": lacks attr '", a.name, "' (", attr_type_name(a.type),
                                    "), which has no default");
  }
  return out;
}

}  // namespace

status_or<graph_def> graph_def_from_proto(const tfp::GraphDef& proto, const std::string& origin,
                                          const import_options& options) {
  CAFLOW_RETURN_IF_ERROR(refuse_library(proto.library(), origin));
  CAFLOW_RETURN_IF_ERROR(refuse_missing_ops(proto, origin));
  graph_def out;
  std::set<std::string_view> names;
  for (int k = 0; k < proto.node_size(); ++k) {
    const auto& n = proto.node(k);
    if (n.name().empty()) return errors::invalid_argument(origin, ": node[", k, "] (op ", n.op(), ") has no name");
    if (!names.insert(n.name()).second)
      return errors::invalid_argument(origin, ": node[", k, "]: a second node named '", n.name(), "'");
    CAFLOW_ASSIGN_OR_RETURN(node_def def,
                            convert_node(n, *op_registry::global().lookup(n.op()), origin, options));
    out.nodes.push_back(std::move(def));
  }
  return out;
}

status_or<graph_def> read_graph_def(std::string_view bytes, graph_encoding encoding,
                                    const std::string& origin, const import_options& options) {
  tfp::GraphDef proto;
  CAFLOW_RETURN_IF_ERROR(parse_graph_def_proto(bytes, encoding, origin, &proto));
  return graph_def_from_proto(proto, origin, options);
}

status_or<graph_def> read_graph_def_file(const std::string& path, const import_options& options) {
  const std::string_view p = path;
  graph_encoding encoding;
  if (p.ends_with(".pb")) {
    encoding = graph_encoding::binary;
  } else if (p.ends_with(".pbtxt")) {
    encoding = graph_encoding::text;
  } else if (p.ends_with(".json")) {
    encoding = graph_encoding::json;
  } else {
    return errors::invalid_argument(path, ": unknown GraphDef file extension (.pb binary, "
                                    ".pbtxt text, .json protobuf JSON or TensorFlow.js model.json)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::not_found(path, ": cannot open: ", std::strerror(errno));
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  if (in.bad()) return errors::data_loss(path, ": read failed: ", std::strerror(errno));
  return read_graph_def(bytes, encoding, path, options);
}

}  // namespace caflow::tf
