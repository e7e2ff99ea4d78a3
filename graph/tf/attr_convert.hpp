#pragma once
// TensorFlow's AttrValue against caflow's attr_value.
//
// Every kind converts: s, i, f, b, type, shape, tensor and a list of any one of them. An empty
// list carries no element type on the wire, so the reader takes it from the op's attr_def;
// without one (an attr the op does not declare) an empty list is an error. Function-valued
// attrs and placeholders (which only appear inside function bodies) are refused by name.
#include <string>

#include "graph/ir/op_def.hpp"

namespace caflow::tfproto {
class AttrValue;
}

namespace caflow::tf {

// `declared` is the op's attr_def for this attr (nullptr when the op does not declare it); the
// value must be of its type. `where` prefixes errors ("model.pb: node 'c' (op Conv2D) attr
// 'strides'").
status_or<attr_value> attr_from_proto(const tfproto::AttrValue& proto, const attr_def* declared,
                                      const std::string& where);

// An empty list is written as an empty ListValue. A value that holds nothing is an error.
status attr_to_proto(const attr_value& value, tfproto::AttrValue* proto);

}  // namespace caflow::tf
