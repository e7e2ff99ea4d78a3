#pragma once
// Bytes in one of the three encodings into a tfproto::GraphDef, every failure an error naming
// the origin (a file name) and, where the format lets it be found, the field:
//   binary  "m.pb: node[3].attr['value'].tensor.tensor_content: a length-delimited value of
//            400 bytes runs past the end (12 bytes left)"
//   text    "m.pbtxt:7:12: Expected integer, got: abc"
//   json    "m.json: node[0].attr[value].i: invalid value ..." (libprotobuf's JSON path)
// JSON may be a bare GraphDef or a TensorFlow.js model.json, whose "modelTopology" holds one.
#include <string>
#include <string_view>

#include "graph/core/status.hpp"
#include "graph/tf/graph_encoding.hpp"

namespace caflow::tfproto {
class GraphDef;
}

namespace caflow::tf {

status parse_graph_def_proto(std::string_view bytes, graph_encoding encoding,
                             const std::string& origin, tfproto::GraphDef* out);

}  // namespace caflow::tf
