// DynamicPartition and DynamicStitch: rows routed by an index tensor, and their inverse.
#include <doctest/doctest.h>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/data_flow_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;
using caflow::testing::vec32;

namespace {
attr_value parts(int64_t n) { return attr_value(n); }
tensor iota_data() { return caflow::testing::iota<float>(tensor_shape{2, 2}); }
}  // namespace

TEST_CASE("DynamicPartition splits a vector in order") {
  auto out = run_kernel("DynamicPartition",
                        {tensor::from_vector<float>({10, 20, 30, 40, 50}), vec32({0, 0, 1, 1, 0})},
                        {{"num_partitions", parts(2)}});
  REQUIRE(out.ok());
  REQUIRE(out->size() == 2);
  check_tensor<float>(out->at(0), {3}, {10, 20, 50});
  check_tensor<float>(out->at(1), {2}, {30, 40});
}

TEST_CASE("DynamicPartition moves whole rows; a partition nobody names is empty") {
  auto data = tensor::from_vector<int64_t>({1, 2, 3, 4, 5, 6}, {3, 2});
  auto out =
      run_kernel("DynamicPartition", {data, vec32({1, 0, 1})}, {{"num_partitions", parts(3)}});
  REQUIRE(out.ok());
  check_tensor<int64_t>(out->at(0), {1, 2}, {3, 4});
  check_tensor<int64_t>(out->at(1), {2, 2}, {1, 2, 5, 6});
  CHECK(out->at(2).shape() == tensor_shape{0, 2});
  // partitions of rank 2 over data [2, 2, 1]: rows are the trailing [1].
  auto data3 = tensor::from_vector<double>({1, 2, 3, 4}, {2, 2, 1});
  auto p2 = tensor::from_vector<int32_t>({0, 1, 1, 0}, {2, 2});
  auto out3 = run_kernel("DynamicPartition", {data3, p2}, {{"num_partitions", parts(2)}});
  REQUIRE(out3.ok());
  check_tensor<double>(out3->at(0), {2, 1}, {1, 4});
  check_tensor<double>(out3->at(1), {2, 1}, {2, 3});
}

TEST_CASE("DynamicPartition of empty data gives empty partitions") {
  auto out = run_kernel("DynamicPartition", {tensor(dtype::float32, tensor_shape{0, 3}), vec32({})},
                        {{"num_partitions", parts(2)}});
  REQUIRE(out.ok());
  CHECK(out->at(0).shape() == tensor_shape{0, 3});
  CHECK(out->at(1).shape() == tensor_shape{0, 3});
}

TEST_CASE("DynamicPartition names a partition value out of range") {
  auto data = tensor::from_vector<float>({1, 2, 3});
  check_error(
      run_kernel("DynamicPartition", {data, vec32({0, 3, 1})}, {{"num_partitions", parts(3)}}),
      "partitions[1] = 3 is not in [0, 3)");
  check_error(
      run_kernel("DynamicPartition", {data, vec32({0, 1, -1})}, {{"num_partitions", parts(3)}}),
      "partitions[2] = -1 is not in [0, 3)");
  auto p2 = tensor::from_vector<int32_t>({0, 0, 0, 5}, {2, 2});
  check_error(run_kernel("DynamicPartition", {iota_data(), p2}, {{"num_partitions", parts(2)}}),
              "partitions[1,1] = 5 is not in [0, 2)");
}

TEST_CASE("DynamicPartition: partitions' shape must lead data's") {
  auto data = tensor::from_vector<float>({1, 2, 3});
  check_error(run_kernel("DynamicPartition", {data, vec32({0, 1})}, {{"num_partitions", parts(2)}}),
              "data of shape [3] must start with the shape of partitions [2]");
  check_error(run_kernel_unchecked("DynamicPartition", {data, vec32({0, 1})},
                                   {{"num_partitions", parts(2)}}),
              "data of shape [3] must start with the shape of partitions [2]");
  check_error(
      run_kernel("DynamicPartition", {data, vec32({0, 1, 0})}, {{"num_partitions", parts(0)}}),
      "num_partitions");
}

TEST_CASE("DynamicStitch merges TF's documented example") {
  auto out = run_kernel(
      "DynamicStitch",
      {tensor::scalar<int32_t>(6), vec32({4, 1}),
       tensor::from_vector<int32_t>({5, 2, 0, 3}, {2, 2}), tensor::from_vector<float>({61, 62}),
       tensor::from_vector<float>({41, 42, 11, 12}, {2, 2}),
       tensor::from_vector<float>({51, 52, 21, 22, 1, 2, 31, 32}, {2, 2, 2})},
      {{"N", int64_t{3}}});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {7, 2}, {1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62});
}

TEST_CASE("DynamicStitch: the last of repeated indices wins; gaps are zero") {
  auto dup = run_kernel("DynamicStitch",
                        {vec32({0, 1}), vec32({1, 2}), tensor::from_vector<int64_t>({1, 2}),
                         tensor::from_vector<int64_t>({3, 4})},
                        {{"N", int64_t{2}}});
  REQUIRE(dup.ok());
  check_tensor<int64_t>(dup->at(0), {3}, {1, 3, 4});
  auto within = run_kernel("DynamicStitch", {vec32({2, 2}), tensor::from_vector<double>({5, 6})},
                           {{"N", int64_t{1}}});
  REQUIRE(within.ok());
  check_tensor<double>(within->at(0), {3}, {0, 0, 6});
  auto gap = run_kernel("DynamicStitch", {vec32({0, 3}), tensor::from_vector<int32_t>({7, 8})},
                        {{"N", int64_t{1}}});
  REQUIRE(gap.ok());
  check_tensor<int32_t>(gap->at(0), {4}, {7, 0, 0, 8});
}

TEST_CASE("DynamicStitch of nothing is empty, rows keep their shape") {
  auto out = run_kernel("DynamicStitch", {vec32({}), tensor(dtype::float32, tensor_shape{0, 2})},
                        {{"N", int64_t{1}}});
  REQUIRE(out.ok());
  CHECK(out->at(0).shape() == tensor_shape{0, 2});
}

TEST_CASE("DynamicStitch names negative indices and mismatched shapes") {
  check_error(run_kernel_unchecked("DynamicStitch",
                                   {vec32({0}), vec32({2, -1}), tensor::from_vector<float>({1}),
                                    tensor::from_vector<float>({2, 3})},
                                   {{"N", int64_t{2}}}),
              "indices[1][1] = -1 is negative");
  auto rows2 = tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  auto rows3 = tensor::from_vector<float>({1, 2, 3}, {1, 3});
  const std::string mismatch =
      "data[1] of shape [1,3] has rows of shape [3] but data[0] of shape [2,2] has rows of shape "
      "[2]";
  check_error(
      run_kernel("DynamicStitch", {vec32({0, 1}), vec32({2}), rows2, rows3}, {{"N", int64_t{2}}}),
      mismatch);
  check_error(run_kernel_unchecked("DynamicStitch", {vec32({0, 1}), vec32({2}), rows2, rows3},
                                   {{"N", int64_t{2}}}),
              mismatch);
  check_error(run_kernel_unchecked("DynamicStitch", {vec32({0, 1, 2}), rows2}, {{"N", int64_t{1}}}),
              "data[0] of shape [2,2] must start with the shape of indices[0] [3]");
}

TEST_CASE("shape inference: partitions' rows, stitch's length from constant indices") {
  auto root = scope::new_root();
  auto data = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 4}});
  auto p = ops::placeholder(root, dtype::int32, {.shape = partial_shape{-1}});
  auto out = ops::dynamic_partition(root, data, p, 3);
  REQUIRE(root.ok());
  REQUIRE(out.size() == 3);
  for (const auto& o : out) CHECK(root.shape_of(o) == partial_shape{-1, 4});
  auto known = ops::dynamic_stitch(
      root, {ops::constant(root, vec32({0, 5})), ops::constant(root, vec32({2}))},
      {out[0], out[1]});
  REQUIRE(root.ok());
  CHECK(root.shape_of(known) == partial_shape{6, 4});
  auto unknown = ops::dynamic_stitch(root, {p}, {data});
  REQUIRE(root.ok());
  CHECK(root.shape_of(unknown) == partial_shape{-1, 4});
  auto wide = ops::placeholder(root, dtype::float32, {.shape = partial_shape{2, 5}});
  ops::dynamic_stitch(root.with_op_name("bad"), {p, ops::constant(root, vec32({0, 1}))},
                      {data, wide});
  check_error(root.get_status(),
              "node 'bad' (DynamicStitch): data[1] of shape [2,5] has rows of shape [5]");
}
