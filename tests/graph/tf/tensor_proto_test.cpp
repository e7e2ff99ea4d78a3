// TensorFlow's TensorProto read into caflow tensors in every form TensorFlow writes, and written
// back as tensor_content.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "graph/tf/proto/tensor.pb.h"
#include "graph/tf/tensor_proto.hpp"

using namespace caflow;
namespace tfp = caflow::tfproto;

namespace {

tfp::TensorProto proto_of(tfp::DataType type, std::initializer_list<int64_t> dims) {
  tfp::TensorProto p;
  p.set_dtype(type);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

template <class T>
std::string bytes_of(std::initializer_list<T> values) {
  std::string out(values.size() * sizeof(T), '\0');
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

tensor read(const tfp::TensorProto& p) {
  auto t = tf::tensor_from_proto(p, "m.pb: node 'c' attr 'value'");
  REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
  return *t;
}

std::string error_of(const tfp::TensorProto& p) {
  auto t = tf::tensor_from_proto(p, "m.pb: node 'c' attr 'value'");
  REQUIRE_FALSE(t.ok());
  return t.get_status().message();
}

}  // namespace

TEST_CASE("tensor_content of every readable type, widened where caflow lacks the type") {
  auto p = proto_of(tfp::DT_FLOAT, {2, 2});
  p.set_tensor_content(bytes_of<float>({1.5f, -2, 3, 4}));
  CHECK(read(p) == tensor::from_vector<float>({1.5f, -2, 3, 4}, {2, 2}));

  p = proto_of(tfp::DT_DOUBLE, {2});
  p.set_tensor_content(bytes_of<double>({0.25, -1e300}));
  CHECK(read(p) == tensor::from_vector<double>({0.25, -1e300}));

  p = proto_of(tfp::DT_INT32, {3});
  p.set_tensor_content(bytes_of<int32_t>({-7, 0, 2147483647}));
  CHECK(read(p) == tensor::from_vector<int32_t>({-7, 0, 2147483647}));

  p = proto_of(tfp::DT_INT64, {2});
  p.set_tensor_content(bytes_of<int64_t>({-(int64_t{1} << 40), 9}));
  CHECK(read(p) == tensor::from_vector<int64_t>({-(int64_t{1} << 40), 9}));

  p = proto_of(tfp::DT_UINT8, {3});
  p.set_tensor_content(std::string("\x00\x7f\xff", 3));
  CHECK(read(p) == tensor::from_vector<uint8_t>({0, 127, 255}));

  p = proto_of(tfp::DT_INT8, {3});
  p.set_tensor_content(std::string("\x80\x01\xff", 3));
  CHECK(read(p) == tensor::from_vector<int32_t>({-128, 1, -1}));

  p = proto_of(tfp::DT_INT16, {2});
  p.set_tensor_content(bytes_of<int16_t>({-32768, 300}));
  CHECK(read(p) == tensor::from_vector<int32_t>({-32768, 300}));

  p = proto_of(tfp::DT_UINT16, {1});
  p.set_tensor_content(bytes_of<uint16_t>({65535}));
  CHECK(read(p) == tensor::from_vector<int32_t>({65535}));

  p = proto_of(tfp::DT_UINT32, {1});
  p.set_tensor_content(bytes_of<uint32_t>({4000000000u}));
  CHECK(read(p) == tensor::from_vector<int64_t>({4000000000}));

  p = proto_of(tfp::DT_BOOL, {3});
  p.set_tensor_content(std::string("\x01\x00\x02", 3));  // any non-zero byte is true
  CHECK(read(p) == tensor::from_vector<bool>({true, false, true}));

  // float16: 1.0, -2.0, 65504 (the largest), 2^-24 (the smallest subnormal), +inf.
  p = proto_of(tfp::DT_HALF, {5});
  p.set_tensor_content(bytes_of<uint16_t>({0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00}));
  const tensor h = read(p);
  REQUIRE(h.type() == dtype::float32);
  CHECK(h.to_vector<float>()[0] == 1.0f);
  CHECK(h.to_vector<float>()[1] == -2.0f);
  CHECK(h.to_vector<float>()[2] == 65504.0f);
  CHECK(h.to_vector<float>()[3] == std::ldexp(1.0f, -24));
  CHECK(std::isinf(h.to_vector<float>()[4]));

  p = proto_of(tfp::DT_BFLOAT16, {2});
  p.set_tensor_content(bytes_of<uint16_t>({0x3f80, 0xc0a0}));
  CHECK(read(p) == tensor::from_vector<float>({1.0f, -5.0f}));
}

TEST_CASE("the typed fields: as many values as elements, one broadcast, or none for zeros") {
  auto p = proto_of(tfp::DT_FLOAT, {2, 3});
  for (float v : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}) p.add_float_val(v);
  CHECK(read(p) == tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}));

  p = proto_of(tfp::DT_FLOAT, {2, 3});
  p.add_float_val(0.5f);
  CHECK(read(p) == tensor::filled<float>({2, 3}, 0.5f));

  p = proto_of(tfp::DT_FLOAT, {4});
  p.add_float_val(1);
  p.add_float_val(2);  // fewer than the elements: the last value fills the rest
  CHECK(read(p) == tensor::from_vector<float>({1, 2, 2, 2}));

  p = proto_of(tfp::DT_INT32, {3});
  CHECK(read(p) == tensor::from_vector<int32_t>({0, 0, 0}));

  p = proto_of(tfp::DT_DOUBLE, {});
  p.add_double_val(2.5);
  CHECK(read(p) == tensor::scalar<double>(2.5));

  p = proto_of(tfp::DT_INT64, {2});
  p.add_int64_val(-3);
  p.add_int64_val(int64_t{1} << 50);
  CHECK(read(p) == tensor::from_vector<int64_t>({-3, int64_t{1} << 50}));

  p = proto_of(tfp::DT_BOOL, {2});
  p.add_bool_val(true);
  CHECK(read(p) == tensor::from_vector<bool>({true, true}));

  // uint8, int8 and int16 live in int_val and are truncated to their width, as TF does.
  p = proto_of(tfp::DT_UINT8, {2});
  p.add_int_val(255);
  p.add_int_val(256 + 7);
  CHECK(read(p) == tensor::from_vector<uint8_t>({255, 7}));
  p = proto_of(tfp::DT_INT8, {2});
  p.add_int_val(-5);
  p.add_int_val(200);
  CHECK(read(p) == tensor::from_vector<int32_t>({-5, -56}));
  p = proto_of(tfp::DT_INT16, {1});
  p.add_int_val(-1234);
  CHECK(read(p) == tensor::from_vector<int32_t>({-1234}));

  p = proto_of(tfp::DT_HALF, {3});
  p.add_half_val(0x3800);  // 0.5, broadcast
  CHECK(read(p) == tensor::from_vector<float>({0.5f, 0.5f, 0.5f}));

  p = proto_of(tfp::DT_UINT32, {1});
  p.add_uint32_val(4294967295u);
  CHECK(read(p) == tensor::from_vector<int64_t>({4294967295}));

  p = proto_of(tfp::DT_FLOAT, {0, 3});
  CHECK(read(p).shape() == tensor_shape{0, 3});
}

TEST_CASE("malformed or unreadable tensors are errors naming the field") {
  auto p = proto_of(tfp::DT_FLOAT, {2, 3});
  p.set_tensor_content(std::string(12, '\0'));
  CHECK(error_of(p) == "m.pb: node 'c' attr 'value': tensor_content holds 12 bytes but shape "
                       "[2,3] of DT_FLOAT needs 24");

  p = proto_of(tfp::DT_FLOAT, {2});
  for (float v : {1.f, 2.f, 3.f}) p.add_float_val(v);
  CHECK(error_of(p) == "m.pb: node 'c' attr 'value': float_val holds 3 values but shape [2] has 2 elements");

  p = proto_of(tfp::DT_STRING, {1});
  p.add_string_val("hello");
  p.add_string_val("world");
  CHECK(error_of(p) == "m.pb: node 'c' attr 'value': string_val holds 2 values but shape [1] has 1 elements");

  p = proto_of(tfp::DT_COMPLEX64, {1});
  CHECK(error_of(p).find("DT_COMPLEX64 has no caflow dtype") != std::string::npos);

  p = proto_of(tfp::DT_FLOAT, {2, -1});
  CHECK(error_of(p) == "m.pb: node 'c' attr 'value': tensor_shape [2,?] is not fully known (a "
                       "constant has a shape)");

  p = proto_of(tfp::DT_FLOAT, {-5});
  CHECK(error_of(p).find("shape dim 0 is -5") != std::string::npos);

  p = proto_of(tfp::DT_FLOAT, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(error_of(p).find("shape of rank 9") != std::string::npos);

  // One value broadcast over 2^40 elements would be 4 TiB: refused, not allocated.
  p = proto_of(tfp::DT_FLOAT, {int64_t{1} << 20, int64_t{1} << 20});
  p.add_float_val(1);
  CHECK(error_of(p).find("needs more than 2 GiB") != std::string::npos);

  p = proto_of(tfp::DT_RESOURCE, {});
  CHECK(error_of(p).find("holds handles, not values") != std::string::npos);

  p = proto_of(static_cast<tfp::DataType>(77), {});
  CHECK(error_of(p).find("DataType 77 has no caflow dtype") != std::string::npos);
}

TEST_CASE("writing uses tensor_content with TensorFlow's types, and reads back equal") {
  for (const tensor& t : {tensor::from_vector<float>({1, -2.5f, 3}, {3, 1}),
                          tensor::from_vector<double>({1e-300}), tensor::scalar<int32_t>(-9),
                          tensor::from_vector<int64_t>({1, 2, 3, 4}, {2, 2}),
                          tensor::from_vector<uint8_t>({0, 255}), tensor::from_vector<bool>({true, false}),
                          tensor::from_vector<float>({}, {0, 2})}) {
    tfp::TensorProto p;
    REQUIRE(tf::tensor_to_proto(t, &p).ok());
    CHECK(p.tensor_content().size() == t.byte_size());
    CHECK(p.float_val_size() == 0);
    CHECK(read(p) == t);
  }
  tfp::TensorProto p;
  REQUIRE(tf::tensor_to_proto(tensor::from_vector<float>({1, 2}), &p).ok());
  CHECK(p.dtype() == tfp::DT_FLOAT);
  CHECK(p.tensor_shape().dim_size() == 1);
  CHECK(p.tensor_shape().dim(0).size() == 2);
  REQUIRE(tf::tensor_to_proto(tensor::scalar<bool>(true), &p).ok());
  CHECK(p.dtype() == tfp::DT_BOOL);
  CHECK(p.tensor_content() == std::string("\x01", 1));
  CHECK(tf::tensor_to_proto(tensor(), &p).message() == "tensor is not initialized");
}

TEST_CASE("strings: string_val each, one value filling the shape, and back") {
  tfp::TensorProto p;
  const tensor words = tensor::from_strings({"a", "", std::string("\0\xff", 2)}, {3});
  REQUIRE(tf::tensor_to_proto(words, &p).ok());
  CHECK(p.dtype() == tfp::DT_STRING);
  CHECK(p.tensor_content().empty());
  REQUIRE(p.string_val_size() == 3);
  CHECK(p.string_val(2) == std::string("\0\xff", 2));
  CHECK(read(p).equals(words));
  p = proto_of(tfp::DT_STRING, {2, 2});
  p.add_string_val("same");
  CHECK(read(p).to_strings() == std::vector<std::string>{"same", "same", "same", "same"});
  p = proto_of(tfp::DT_STRING, {2});
  CHECK(read(p).to_strings() == std::vector<std::string>{"", ""});
}

TEST_CASE("half and bfloat16 bits convert exactly") {
  CHECK(tf::half_to_float(0x0000) == 0.0f);
  CHECK(std::signbit(tf::half_to_float(0x8000)));
  CHECK(tf::half_to_float(0x3555) == doctest::Approx(0.333252f).epsilon(1e-6));
  CHECK(tf::half_to_float(0x03ff) == std::ldexp(1023.0f, -24));  // largest subnormal
  CHECK(tf::half_to_float(0x0400) == std::ldexp(1.0f, -14));     // smallest normal
  CHECK(std::isnan(tf::half_to_float(0x7e00)));
  CHECK(tf::half_to_float(0xfc00) == -INFINITY);
  CHECK(tf::bfloat16_to_float(0x4049) == doctest::Approx(3.140625f));
}
