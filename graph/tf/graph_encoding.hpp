#pragma once
// The three spellings of a TensorFlow GraphDef that graph/tf reads and writes.
namespace caflow::tf {

enum class graph_encoding {
  binary,  // protobuf wire format (.pb)
  text,    // protobuf text format (.pbtxt)
  json,    // protobuf JSON (.json): int64 as strings, bytes as base64, enums by name
};

const char* graph_encoding_name(graph_encoding e);  // "binary", "text", "json"

}  // namespace caflow::tf
