#pragma once
// Why protobuf bytes failed to parse, said as the path of the field at fault.
//
// libprotobuf's binary parser only answers yes or no. When it says no, this walks the same
// bytes by the message's descriptor and names the first field it cannot read:
// "node[3].attr['value'].tensor.tensor_content: length 4000 runs past the end (12 bytes left)".
#include <string>
#include <string_view>

namespace google::protobuf {
class Descriptor;
}

namespace caflow::tf {

// The first problem found in `bytes` read as a `type` message, or "" when the walk finds none
// (the parser may still have refused the bytes: for nesting deeper than it allows, say).
std::string diagnose_wire_bytes(std::string_view bytes, const google::protobuf::Descriptor& type);

}  // namespace caflow::tf
