#include "graph/tf/tensor_proto.hpp"

#include <bit>
#include <cstring>
#include <limits>

#include "graph/tf/proto/tensor.pb.h"
#include "graph/tf/tf_dtype.hpp"

namespace caflow::tf {
namespace {

namespace tfp = ::caflow::tfproto;

// A tensor described by one value broadcast over its shape (or by none: zeros) can be far
// bigger than its bytes; past this size it is refused rather than allocated. No GraphDef holds
// more (protobuf messages end at 2 GiB), so no real constant is lost.
constexpr uint64_t max_tensor_bytes = uint64_t{1} << 31;

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Fills `out` (n elements of Dst) from `count` source values read by `get(i)`: the last value
// repeats, and no value at all means zeros.
template <class Dst, class Get>
void fill(Dst* out, int64_t n, int64_t count, Get&& get) {
  for (int64_t i = 0; i < count && i < n; ++i) out[i] = static_cast<Dst>(get(i));
  const Dst rest = count > 0 ? out[count - 1] : Dst{};
  for (int64_t i = count; i < n; ++i) out[i] = rest;
}

// The element at `i` of a TF type's little-endian bytes, as caflow's value.
template <class Dst>
Dst from_content(tf_type t, const char* bytes, int64_t i) {
  switch (t) {
    case tfp::DT_FLOAT: return static_cast<Dst>(load<float>(bytes + 4 * i));
    case tfp::DT_DOUBLE: return static_cast<Dst>(load<double>(bytes + 8 * i));
    case tfp::DT_INT32: return static_cast<Dst>(load<int32_t>(bytes + 4 * i));
    case tfp::DT_UINT8: return static_cast<Dst>(load<uint8_t>(bytes + i));
    case tfp::DT_INT16: return static_cast<Dst>(load<int16_t>(bytes + 2 * i));
    case tfp::DT_INT8: return static_cast<Dst>(load<int8_t>(bytes + i));
    case tfp::DT_UINT16: return static_cast<Dst>(load<uint16_t>(bytes + 2 * i));
    case tfp::DT_UINT32: return static_cast<Dst>(load<uint32_t>(bytes + 4 * i));
    case tfp::DT_INT64: return static_cast<Dst>(load<int64_t>(bytes + 8 * i));
    case tfp::DT_BOOL: return static_cast<Dst>(load<uint8_t>(bytes + i) != 0);
    case tfp::DT_HALF: return static_cast<Dst>(half_to_float(load<uint16_t>(bytes + 2 * i)));
    case tfp::DT_BFLOAT16:
      return static_cast<Dst>(bfloat16_to_float(load<uint16_t>(bytes + 2 * i)));
    default: return Dst{};
  }
}

// An int_val entry as the narrow type TensorFlow stores in it (truncating, as TensorFlow does).
int64_t narrow_int(tf_type t, int32_t v) {
  switch (t) {
    case tfp::DT_UINT8: return static_cast<uint8_t>(v);
    case tfp::DT_INT8: return static_cast<int8_t>(v);
    case tfp::DT_INT16: return static_cast<int16_t>(v);
    case tfp::DT_UINT16: return static_cast<uint16_t>(v);
    default: return v;
  }
}

// The typed field that holds `t`'s values, its name and its length.
struct typed_field {
  const char* name = nullptr;
  int64_t size = 0;
};

typed_field field_of(const tfp::TensorProto& p, tf_type t) {
  switch (t) {
    case tfp::DT_FLOAT: return {"float_val", p.float_val_size()};
    case tfp::DT_DOUBLE: return {"double_val", p.double_val_size()};
    case tfp::DT_INT32:
    case tfp::DT_UINT8:
    case tfp::DT_INT16:
    case tfp::DT_INT8:
    case tfp::DT_UINT16: return {"int_val", p.int_val_size()};
    case tfp::DT_INT64: return {"int64_val", p.int64_val_size()};
    case tfp::DT_BOOL: return {"bool_val", p.bool_val_size()};
    case tfp::DT_HALF:
    case tfp::DT_BFLOAT16: return {"half_val", p.half_val_size()};
    case tfp::DT_UINT32: return {"uint32_val", p.uint32_val_size()};
    default: return {};
  }
}

template <class Dst>
Dst from_field(const tfp::TensorProto& p, tf_type t, int64_t i) {
  switch (t) {
    case tfp::DT_FLOAT: return static_cast<Dst>(p.float_val(i));
    case tfp::DT_DOUBLE: return static_cast<Dst>(p.double_val(i));
    case tfp::DT_INT64: return static_cast<Dst>(p.int64_val(i));
    case tfp::DT_BOOL: return static_cast<Dst>(p.bool_val(i));
    case tfp::DT_UINT32: return static_cast<Dst>(p.uint32_val(i));
    case tfp::DT_HALF:
      return static_cast<Dst>(half_to_float(static_cast<uint16_t>(p.half_val(i))));
    case tfp::DT_BFLOAT16:
      return static_cast<Dst>(bfloat16_to_float(static_cast<uint16_t>(p.half_val(i))));
    default: return static_cast<Dst>(narrow_int(t, p.int_val(i)));
  }
}

}  // namespace

float half_to_float(uint16_t bits) {
  const uint32_t sign = uint32_t{bits & 0x8000u} << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);  // inf, nan
  } else if (exponent != 0) {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;  // +-0
  } else {
    // A subnormal half is a normal float: shift the mantissa up to its leading one.
    int e = 113;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --e;
    }
    out = sign | (static_cast<uint32_t>(e) << 23) | ((mantissa & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(out);
}

float bfloat16_to_float(uint16_t bits) { return std::bit_cast<float>(uint32_t{bits} << 16); }

status_or<partial_shape> shape_from_proto(const tfp::TensorShapeProto& proto,
                                          const std::string& where) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0)
      return errors::invalid_argument(where, ": tensor_shape has unknown_rank set and ",
                                      proto.dim_size(), " dims");
    return partial_shape::unknown();
  }
  if (proto.dim_size() > max_rank)
    return errors::unimplemented(where, ": shape of rank ", proto.dim_size(),
                                 " (caflow's tensors have at most ", max_rank, " dims)");
  std::vector<int64_t> dims;
  for (const auto& d : proto.dim()) {
    if (d.size() < -1)
      return errors::invalid_argument(where, ": shape dim ", dims.size(), " is ", d.size(),
                                      " (a size, or -1 for unknown)");
    dims.push_back(d.size());
  }
  auto s = partial_shape::make(dims);
  if (!s.ok()) return s.get_status().with_context(where + ": shape");
  return s;
}

void shape_to_proto(const partial_shape& s, tfp::TensorShapeProto* proto) {
  proto->Clear();
  if (!s.rank_known()) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int i = 0; i < s.rank(); ++i) proto->add_dim()->set_size(s.dim(i));
}

status_or<tensor> tensor_from_content(tf_type tt, const tensor_shape& shape,
                                      std::string_view content, const std::string& where) {
  auto type = dtype_from_tf(tt);
  if (!type.ok()) return type.get_status().with_context(where + ": dtype");
  const size_t tf_size = tf_element_size(tt);
  if (*type == dtype::resource || tf_size == 0)
    return errors::unimplemented(where, ": a tensor of ", tf_type_name(tt),
                                 " holds handles, not values");
  const int64_t n = shape.num_elements();
  // The division first: a product that wraps could otherwise match the content's size.
  if (static_cast<uint64_t>(n) > content.size() / tf_size ||
      static_cast<uint64_t>(content.size()) != static_cast<uint64_t>(n) * tf_size)
    return errors::invalid_argument(where, " holds ", content.size(), " bytes but shape ",
                                    shape.to_string(), " of ", tf_type_name(tt), " needs ",
                                    static_cast<uint64_t>(n) * tf_size);
  auto out = tensor::allocate(default_allocator(), *type, shape);
  if (!out.ok()) return out.get_status().with_context(where);
  // Same bytes on both sides (little-endian, as caflow's): one copy. Bools are read one by one,
  // since a byte other than 0 or 1 must still read as true.
  static_assert(std::endian::native == std::endian::little, "tensor_content is little-endian");
  if (tf_type_of(*type) == tt && *type != dtype::boolean) {
    if (!content.empty()) std::memcpy(out->raw_data(), content.data(), content.size());
    return out;
  }
  visit_dtype(*type, [&]<class T>() {
    T* dst = out->template data<T>();
    fill(dst, n, n, [&](int64_t i) { return from_content<T>(tt, content.data(), i); });
  });
  return out;
}

// A constant's shape: read from the proto and fully known.
status_or<tensor_shape> constant_shape(const tfp::TensorProto& proto, const std::string& where) {
  CAFLOW_ASSIGN_OR_RETURN(partial_shape ps, shape_from_proto(proto.tensor_shape(),
                                                             where + ": tensor_shape"));
  if (!ps.fully_defined())
    return errors::invalid_argument(where, ": tensor_shape ", ps.to_string(),
                                    " is not fully known (a constant has a shape)");
  return ps.to_shape();
}

// TensorFlow writes strings to string_val, one per element; as for numbers, fewer values than
// elements repeat the last one (a Const filled with one string).
status_or<tensor> strings_from_proto(const tfp::TensorProto& proto, const std::string& where) {
  CAFLOW_ASSIGN_OR_RETURN(const tensor_shape shape, constant_shape(proto, where));
  const int64_t n = shape.num_elements();
  const int have = proto.string_val_size();
  if (have > n)
    return errors::invalid_argument(where, ": string_val holds ", have, " values but shape ",
                                    shape.to_string(), " has ", n, " elements");
  if (n > 0 && have == 0 && !proto.tensor_content().empty())
    return errors::unimplemented(where, ": strings in tensor_content (TensorFlow writes them to "
                                 "string_val)");
  uint64_t total = 0;
  for (const auto& v : proto.string_val()) total += v.size();
  if (have > 0) total += static_cast<uint64_t>(n - have) * proto.string_val(have - 1).size();
  if (total > max_tensor_bytes)
    return errors::resource_exhausted(where, ": string", shape.to_string(), " needs more than 2 GiB");
  std::vector<std::string> values;
  values.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values.push_back(have == 0 ? std::string() : proto.string_val(static_cast<int>(std::min<int64_t>(i, have - 1))));
  return tensor::from_strings(values, shape);
}

status_or<tensor> tensor_from_proto(const tfp::TensorProto& proto, const std::string& where) {
  const tf_type tt = proto.dtype();
  auto type = dtype_from_tf(tt);
  if (!type.ok()) return type.get_status().with_context(where + ": tensor dtype");
  if (*type == dtype::string) return strings_from_proto(proto, where);
  if (*type == dtype::resource || tf_element_size(tt) == 0)
    return errors::unimplemented(where, ": a tensor of ", tf_type_name(tt),
                                 " holds handles, not values");

  CAFLOW_ASSIGN_OR_RETURN(const tensor_shape shape, constant_shape(proto, where));
  const std::string& content = proto.tensor_content();
  if (!content.empty()) return tensor_from_content(tt, shape, content, where + ": tensor_content");

  const int64_t n = shape.num_elements();
  const typed_field field = field_of(proto, tt);
  if (field.size > n)
    return errors::invalid_argument(where, ": ", field.name, " holds ", field.size,
                                    " values but shape ", shape.to_string(), " has ", n,
                                    " elements");
  if (static_cast<uint64_t>(n) * dtype_size(*type) > max_tensor_bytes)
    return errors::resource_exhausted(where, ": shape ", shape.to_string(), " of ",
                                      tf_type_name(tt), " needs more than 2 GiB");
  auto out = tensor::allocate(default_allocator(), *type, shape);
  if (!out.ok()) return out.get_status().with_context(where);
  visit_dtype(*type, [&]<class T>() {
    fill(out->template data<T>(), n, field.size, [&](int64_t i) { return from_field<T>(proto, tt, i); });
  });
  return out;
}

status tensor_to_proto(const tensor& t, tfp::TensorProto* proto) {
  if (!t.initialized()) return errors::invalid_argument("tensor is not initialized");
  if (t.type() == dtype::resource)
    return errors::invalid_argument("a resource tensor has no value to write");
  proto->Clear();
  proto->set_dtype(static_cast<tfp::DataType>(tf_type_of(t.type())));
  shape_to_proto(partial_shape(t.shape()), proto->mutable_tensor_shape());
  // caflow's element bytes are TensorFlow's (little-endian, bool one byte of 0 or 1).
  static_assert(std::endian::native == std::endian::little, "tensor_content is little-endian");
  if (t.type() == dtype::string) {
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      const std::string_view v = t.string_at(i);
      proto->add_string_val(v.data(), v.size());
    }
    return ok_status();
  }
  if (t.byte_size() > 0)
    proto->set_tensor_content(static_cast<const char*>(t.raw_data()), t.byte_size());
  return ok_status();
}

}  // namespace caflow::tf
