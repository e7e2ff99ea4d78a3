#pragma once
// TensorFlow's element types (DataType) against caflow's dtypes.
//
// caflow has six element types. A TensorFlow type that one of them holds without loss is read
// as that one, as TensorFlow.js does: float16 and bfloat16 as float32; int8, int16 and uint16 as
// int32; uint32 as int64. A reference type (DT_FLOAT_REF) is its base type: caflow's refs are a
// property of an op's arguments, not of a dtype. Every other type (strings, complex numbers,
// quantized types, variants, uint64) has no caflow counterpart and is refused by name.
#include <cstddef>
#include <string>

#include "graph/core/types.hpp"

namespace caflow::tf {

// TensorFlow's wire numbers (graph/tf/proto/types.proto) are ints here, so that this header
// needs no generated code.
using tf_type = int;

// "DT_HALF", or "DataType 77" for a number TensorFlow does not define.
std::string tf_type_name(tf_type t);

// The caflow dtype that holds `t`'s values, or an error naming the TF type.
status_or<dtype> dtype_from_tf(tf_type t);

// Bytes per element of `t` in a TensorProto's tensor_content; 0 for a type caflow cannot read.
size_t tf_element_size(tf_type t);

// TensorFlow's type for a caflow dtype (float32 -> DT_FLOAT, resource -> DT_RESOURCE).
// REQUIRES: t != dtype::invalid.
tf_type tf_type_of(dtype t);

}  // namespace caflow::tf
