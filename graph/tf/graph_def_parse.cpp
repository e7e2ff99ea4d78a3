#include "graph/tf/graph_def_parse.hpp"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <nlohmann/json.hpp>

#include "graph/tf/proto/graph.pb.h"
#include "graph/tf/wire_diagnosis.hpp"

namespace caflow::tf {
namespace {

namespace pb = ::google::protobuf;

// Far deeper than any GraphDef (a tensor in a list in an attr in a node is 8 levels).
constexpr int max_json_depth = 64;

const char* const graph_keys[] = {"node", "versions", "version", "library"};
const char* const node_keys[] = {"name", "op", "input", "device", "attr",
                                 "experimentalDebugInfo", "experimental_debug_info",
                                 "experimentalType", "experimental_type"};

// Keeps the first error of the text parser, with its line and column (1-based).
class first_error : public pb::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (message_.empty()) message_ = errors::concat(line + 1, ":", column + 1, ": ", message);
  }
  void AddWarning(int, int, const std::string&) override {}
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

status parse_binary(std::string_view bytes, const std::string& origin, tfproto::GraphDef* out) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    return errors::invalid_argument(origin, ": ", bytes.size(),
                                    " bytes, past protobuf's 2 GiB limit for one message");
  if (out->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return ok_status();
  std::string why = diagnose_wire_bytes(bytes, *tfproto::GraphDef::descriptor());
  if (why.empty()) why = "not a GraphDef in protobuf's binary format (libprotobuf refused it)";
  return errors::invalid_argument(origin, ": ", why);
}

status parse_text(std::string_view bytes, const std::string& origin, tfproto::GraphDef* out) {
  pb::TextFormat::Parser parser;
  first_error collector;
  parser.RecordErrorsTo(&collector);
  pb::io::ArrayInputStream in(bytes.data(), static_cast<int>(bytes.size()));
  if (bytes.size() > static_cast<size_t>(INT32_MAX) || !parser.Parse(&in, out))
    return errors::invalid_argument(origin, ":",
                                    collector.message().empty() ? " not a GraphDef in protobuf's text format"
                                                                : collector.message());
  return ok_status();
}

// The object's keys must be among `known`: the JSON parser below skips unknown fields (TF.js
// adds some inside function libraries, which are refused anyway), so a misspelt key of a
// GraphDef or a NodeDef is caught here instead.
status check_keys(const nlohmann::json& object, std::span<const char* const> known,
                  const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok) return errors::invalid_argument(where, ": unknown field '", key, "'");
  }
  return ok_status();
}

status parse_json(std::string_view bytes, const std::string& origin, tfproto::GraphDef* out) {
  // Nesting is bounded before anything recurses over the document (dump() does).
  bool too_deep = false;
  nlohmann::json::parser_callback_t depth_limit = [&](int depth, nlohmann::json::parse_event_t,
                                                      nlohmann::json&) {
    if (depth > max_json_depth) too_deep = true;
    return !too_deep;
  };
  nlohmann::json doc = nlohmann::json::parse(bytes.begin(), bytes.end(), depth_limit, false);
  if (too_deep)
    return errors::invalid_argument(origin, ": JSON nested deeper than ", max_json_depth, " levels");
  if (doc.is_discarded())
    return errors::invalid_argument(origin, ": not JSON (a GraphDef in protobuf JSON, or a "
                                    "TensorFlow.js model.json)");
  std::string where = origin;
  if (doc.is_object() && doc.contains("modelTopology")) {
    // A TensorFlow.js model.json: its graph is the topology; its weights are the caller's.
    nlohmann::json topology = std::move(doc["modelTopology"]);
    doc = std::move(topology);
    where += ": modelTopology";
    if (doc.is_object() && doc.contains("class_name"))
      return errors::unimplemented(where, " is a Keras layers model (TensorFlow.js LayersModel), "
                                   "not a graph model");
  }
  if (!doc.is_object())
    return errors::invalid_argument(where, ": expected a GraphDef object, got JSON ", doc.type_name());
  CAFLOW_RETURN_IF_ERROR(check_keys(doc, graph_keys, where));
  if (doc.contains("node") && doc["node"].is_array()) {
    const auto& nodes = doc["node"];
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (!nodes[k].is_object())
        return errors::invalid_argument(where, ": node[", k, "]: expected an object, got JSON ",
                                        nodes[k].type_name());
      CAFLOW_RETURN_IF_ERROR(check_keys(nodes[k], node_keys, errors::concat(where, ": node[", k, "]")));
    }
  }
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto st = pb::util::JsonStringToMessage(doc.dump(), out, options);
  if (!st.ok())
    return errors::invalid_argument(where, ": ", std::string(st.message()));
  return ok_status();
}

}  // namespace

status parse_graph_def_proto(std::string_view bytes, graph_encoding encoding,
                             const std::string& origin, tfproto::GraphDef* out) {
  out->Clear();
  switch (encoding) {
    case graph_encoding::binary: return parse_binary(bytes, origin, out);
    case graph_encoding::text: return parse_text(bytes, origin, out);
    case graph_encoding::json: return parse_json(bytes, origin, out);
  }
  return errors::invalid_argument(origin, ": unknown graph encoding");
}

}  // namespace caflow::tf
