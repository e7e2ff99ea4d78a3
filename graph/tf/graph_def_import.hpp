#pragma once
// Reading a TensorFlow GraphDef into caflow's graph_def.
//
// Accepted: TF 1.x graphs (frozen or not) in binary, text or JSON protobuf, and the graph of a
// TensorFlow.js model.json. Everything is checked before anything runs, and every error names
// the origin (the file) and the culprit:
//   - ops caflow lacks: one error naming each missing op and every node that uses it;
//   - a non-empty function library: refused, naming its functions (caflow runs none);
//   - attrs: converted by the op's attr_defs (an empty list takes its element type from them);
//     attrs newer TensorFlow versions add while holding their default, type attrs caflow reads
//     off the edges, and TensorFlow-internal '_' annotations are dropped
//     (graph/tf/dropped_attrs.hpp has the list); any other attr the op does not declare is an
//     error naming node, op and attr; a declared attr without default must be present;
//   - malformed bytes: the field at fault (graph/tf/graph_def_parse.hpp).
// Devices are kept as written; `_class` ("loc:@node") colocation attrs are kept, which is how
// caflow's placer colocates. Element types caflow lacks are widened (graph/tf/tf_dtype.hpp).
// Shapes, dtypes of edges and input counts are checked later, by graph::build, when the
// graph_def reaches a session.
#include <string>
#include <string_view>

#include "graph/ir/graph_def.hpp"
#include "graph/tf/graph_encoding.hpp"

namespace caflow::tfproto {
class GraphDef;
}

namespace caflow::tf {

struct import_options {
  // When true, a Const node may lack its "value" attr: TensorFlow.js keeps weights outside the
  // topology and the caller fills them in.
  bool const_values_external = false;
};

// `origin` (a file name) starts every error message.
status_or<graph_def> read_graph_def(std::string_view bytes, graph_encoding encoding,
                                    const std::string& origin, const import_options& = {});

// By extension: .pb binary, .pbtxt text, .json (a bare GraphDef in protobuf JSON, or a
// TensorFlow.js model.json whose "modelTopology" holds it).
status_or<graph_def> read_graph_def_file(const std::string& path, const import_options& = {});

// The conversion alone, for callers that parsed the message themselves.
status_or<graph_def> graph_def_from_proto(const tfproto::GraphDef& proto, const std::string& origin,
                                          const import_options& = {});

}  // namespace caflow::tf
