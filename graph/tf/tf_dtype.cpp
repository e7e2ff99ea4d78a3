#include "graph/tf/tf_dtype.hpp"

#include "graph/tf/proto/types.pb.h"

namespace caflow::tf {
namespace {

namespace tfp = ::caflow::tfproto;

struct type_row {
  tfp::DataType tf;
  dtype type;      // invalid: no caflow counterpart
  size_t content_size;  // bytes per element in tensor_content
};

// One row per TensorFlow type caflow reads; widening rows are lossless (see the header).
constexpr type_row type_table[] = {
    {tfp::DT_FLOAT, dtype::float32, 4},    {tfp::DT_DOUBLE, dtype::float64, 8},
    {tfp::DT_INT32, dtype::int32, 4},      {tfp::DT_UINT8, dtype::uint8, 1},
    {tfp::DT_INT16, dtype::int32, 2},      {tfp::DT_INT8, dtype::int32, 1},
    {tfp::DT_INT64, dtype::int64, 8},      {tfp::DT_BOOL, dtype::boolean, 1},
    {tfp::DT_BFLOAT16, dtype::float32, 2}, {tfp::DT_UINT16, dtype::int32, 2},
    {tfp::DT_HALF, dtype::float32, 2},     {tfp::DT_RESOURCE, dtype::resource, 0},
    {tfp::DT_UINT32, dtype::int64, 4},     {tfp::DT_STRING, dtype::string, 0},
};

constexpr int ref_offset = 100;  // DT_X_REF = DT_X + 100

const type_row* find_row(tf_type t) {
  if (t > ref_offset) t -= ref_offset;
  for (const auto& r : type_table)
    if (r.tf == t) return &r;
  return nullptr;
}

}  // namespace

std::string tf_type_name(tf_type t) {
  if (tfp::DataType_IsValid(t)) return tfp::DataType_Name(static_cast<tfp::DataType>(t));
  return errors::concat("DataType ", t);
}

status_or<dtype> dtype_from_tf(tf_type t) {
  const type_row* r = find_row(t);
  if (!r || t == tfp::DT_INVALID)
    return errors::unimplemented(tf_type_name(t), " has no caflow dtype (caflow has float32, "
                                 "float64, int32, int64, uint8, bool, string; float16, bfloat16, int8, "
                                 "int16, uint16 and uint32 are widened into them)");
  return r->type;
}

size_t tf_element_size(tf_type t) {
  const type_row* r = find_row(t);
  return r ? r->content_size : 0;
}

tf_type tf_type_of(dtype t) {
  switch (t) {
    case dtype::float32: return tfp::DT_FLOAT;
    case dtype::float64: return tfp::DT_DOUBLE;
    case dtype::int32: return tfp::DT_INT32;
    case dtype::int64: return tfp::DT_INT64;
    case dtype::uint8: return tfp::DT_UINT8;
    case dtype::boolean: return tfp::DT_BOOL;
    case dtype::resource: return tfp::DT_RESOURCE;
    case dtype::string: return tfp::DT_STRING;
    case dtype::invalid: break;
  }
  return tfp::DT_INVALID;
}

}  // namespace caflow::tf
