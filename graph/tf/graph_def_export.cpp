#include "graph/tf/graph_def_export.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include "graph/tf/attr_convert.hpp"
#include "graph/tf/proto/graph.pb.h"

namespace caflow::tf {
namespace {

// The GraphDef version of the TensorFlow 1.x graphs caflow's ops follow: TensorFlow reads a
// graph of any producer version at or above its minimum (0).
constexpr int tf_producer_version = 27;

}  // namespace

status graph_def_to_proto(const graph_def& graph, tfproto::GraphDef* proto) {
  proto->Clear();
  proto->mutable_versions()->set_producer(tf_producer_version);
  for (const node_def& n : graph.nodes) {
    tfproto::NodeDef* out = proto->add_node();
    out->set_name(n.name);
    out->set_op(n.op);
    out->set_device(n.device);
    for (const auto& in : n.inputs) out->add_input(in);
    for (const auto& [name, value] : n.attrs) {
      status st = attr_to_proto(value, &(*out->mutable_attr())[name]);
      if (!st.ok())
        return st.with_context(errors::concat("node '", n.name, "' (op ", n.op, ") attr '", name, "'"));
    }
  }
  return ok_status();
}

status_or<std::string> write_graph_def(const graph_def& graph, graph_encoding encoding) {
  tfproto::GraphDef proto;
  CAFLOW_RETURN_IF_ERROR(graph_def_to_proto(graph, &proto));
  std::string out;
  switch (encoding) {
    case graph_encoding::binary:
      if (proto.ByteSizeLong() > static_cast<size_t>(INT32_MAX))
        return errors::resource_exhausted("the graph is ", proto.ByteSizeLong(),
                                          " bytes as a GraphDef, past protobuf's 2 GiB limit");
      // Deterministic: the same graph gives the same bytes (attr maps in key order).
      {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        proto.SerializeToCodedStream(&coded);
      }
      return out;
    case graph_encoding::text:
      if (!google::protobuf::TextFormat::PrintToString(proto, &out))
        return errors::internal("protobuf could not print the GraphDef as text");
      return out;
    case graph_encoding::json: {
      google::protobuf::util::JsonPrintOptions options;
      options.add_whitespace = true;
      options.preserve_proto_field_names = false;  // lowerCamelCase, as TensorFlow.js writes
      const auto st = google::protobuf::util::MessageToJsonString(proto, &out, options);
      if (!st.ok()) return errors::internal("protobuf could not print the GraphDef as JSON: ",
                                            std::string(st.message()));
      return out;
    }
  }
  return errors::invalid_argument("unknown graph encoding");
}

}  // namespace caflow::tf
