#include <doctest/doctest.h>

#include <cstdint>

#include "graph/core/tensor.hpp"
#include "graph/core/tensor_views.hpp"

using namespace caflow;

TEST_CASE("every dtype has a size and a name, and names parse back") {
  const dtype all[] = {dtype::float32, dtype::float64, dtype::int32, dtype::int64, dtype::uint8, dtype::boolean};
  const size_t sizes[] = {4, 8, 4, 8, 1, 1};
  for (int i = 0; i < 6; ++i) {
    CHECK(dtype_size(all[i]) == sizes[i]);
    auto back = parse_dtype(dtype_name(all[i]));
    REQUIRE(back.ok());
    CHECK(*back == all[i]);
  }
  CHECK(parse_dtype("float").value() == dtype::float32);
  CHECK(parse_dtype("DT_INT64").value() == dtype::int64);
  auto bad = parse_dtype("complex64");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.get_status().message() == "unknown dtype 'complex64'");
}

TEST_CASE("buffers are 64-byte aligned and shared without copying") {
  tensor a(dtype::float32, tensor_shape{3, 5});
  CHECK(reinterpret_cast<uintptr_t>(a.raw_data()) % 64 == 0);
  CHECK(a.byte_size() == 60);
  tensor b = a;
  CHECK(b.shares_buffer_with(a));
  CHECK_FALSE(a.buffer_unique());
  tensor r = a.reshaped(tensor_shape{15});
  CHECK(r.raw_data() == a.raw_data());
  CHECK(r.shape() == tensor_shape{15});
  tensor d = a.deep_copy();
  CHECK_FALSE(d.shares_buffer_with(a));
  CHECK(d.buffer_unique());
}

TEST_CASE("scalars and zero-size tensors") {
  auto s = tensor::scalar<int64_t>(-7);
  CHECK(s.rank() == 0);
  CHECK(s.num_elements() == 1);
  CHECK(s.scalar_value<int64_t>() == -7);
  tensor z(dtype::float64, tensor_shape{4, 0, 2});
  CHECK(z.num_elements() == 0);
  CHECK(z.byte_size() == 0);
  CHECK(z.raw_data() == nullptr);
  CHECK(z.initialized());
  CHECK(z.equals(tensor(dtype::float64, tensor_shape{4, 0, 2})));
  CHECK_FALSE(tensor().initialized());
}

TEST_CASE("from_vector, filled, slices and debug strings") {
  auto t = tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {3, 2});
  CHECK(t.debug_string() == "int32[3,2] {1, 2, 3, 4, 5, 6}");
  auto rows = t.slice_dim0(1, 3);
  CHECK(rows.shape() == tensor_shape{2, 2});
  CHECK(rows.to_vector<int32_t>() == std::vector<int32_t>{3, 4, 5, 6});
  CHECK(rows.shares_buffer_with(t));
  auto f = tensor::filled<bool>({2}, true);
  CHECK(f.debug_string() == "bool[2] {true, true}");
  auto u = tensor::from_vector<uint8_t>({200, 7});
  CHECK(u.debug_string() == "uint8[2] {200, 7}");
  auto big = tensor::filled<float>({100}, 1.0f);
  CHECK(big.debug_string(3) == "float32[100] {1, 1, 1, ...}");
}

TEST_CASE("allocation failures are errors, not crashes") {
  auto huge = tensor::allocate(default_allocator(), dtype::float64, tensor_shape{1LL << 31, 1LL << 31});
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.get_status().code() == error_code::resource_exhausted);
}

TEST_CASE("Eigen views read and write the tensor's bytes") {
  auto t = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto m = matrix<float>(t);
  CHECK(m(1, 2) == 6.0f);
  m(0, 1) = 20.0f;
  CHECK(t.data<float>()[1] == 20.0f);
  auto v = flat<float>(t);
  Eigen::Tensor<float, 0, Eigen::RowMajor> sum = v.sum();
  CHECK(sum() == doctest::Approx(1 + 20 + 3 + 4 + 5 + 6));
  auto cube = shaped<float, 3>(t, {1, 2, 3});
  CHECK(cube(0, 1, 0) == 4.0f);
}
