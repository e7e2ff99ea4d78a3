#pragma once
// TensorFlow's TensorProto against caflow's tensor.
//
// Reading accepts every form TensorFlow writes: the raw little-endian `tensor_content`, or the
// repeated field of the dtype (float_val, int_val, half_val, ...) with as many values as
// elements, fewer (the last value fills the rest, so one value broadcasts to the whole shape)
// or none (zeros). Types caflow lacks are widened as graph/tf/tf_dtype.hpp says; the others
// (strings among them) are refused naming the type. Writing always uses tensor_content.
#include <string>
#include <string_view>

#include "graph/core/tensor.hpp"
#include "graph/tf/tf_dtype.hpp"

namespace caflow::tfproto {
class TensorProto;
class TensorShapeProto;
}  // namespace caflow::tfproto

namespace caflow::tf {

// `where` prefixes every error ("model.pb: node 'W' attr 'value'"), which then names the
// field at fault ("tensor_content holds 12 bytes, shape [2,3] of DT_FLOAT needs 24").
status_or<tensor> tensor_from_proto(const tfproto::TensorProto& proto, const std::string& where);

// A tensor of TensorFlow type `t` from its elements' little-endian bytes, as TensorFlow writes
// them in tensor_content and in checkpoints; types caflow lacks are widened. `where` prefixes
// every error ("m.pb: node 'c' attr 'value': tensor_content holds 4 bytes but ...").
status_or<tensor> tensor_from_content(tf_type t, const tensor_shape& shape,
                                      std::string_view content, const std::string& where);

// REQUIRES nothing of `t`; an uninitialized tensor (or a resource one) is an error.
status tensor_to_proto(const tensor& t, tfproto::TensorProto* proto);

// A TensorShapeProto as a partial shape (unknown rank, dims of -1); errors for dims below -1
// or past caflow's max_rank.
status_or<partial_shape> shape_from_proto(const tfproto::TensorShapeProto& proto,
                                          const std::string& where);
void shape_to_proto(const partial_shape& s, tfproto::TensorShapeProto* proto);

// IEEE binary16 and bfloat16 bits as float (exact: every value of both is a float).
float half_to_float(uint16_t bits);
float bfloat16_to_float(uint16_t bits);

}  // namespace caflow::tf
