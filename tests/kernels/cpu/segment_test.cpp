// UnsortedSegmentSum: rows summed into their segments, negative ids dropped, ids of any rank,
// wide rows (the blocked, parallel path), and the errors.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;

namespace {

tensor segment_sum(const tensor& data, const tensor& ids, int32_t num) {
  auto out = run_kernel("UnsortedSegmentSum", {data, ids, tensor::scalar<int32_t>(num)});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return out->at(0);
}

}  // namespace

TEST_CASE("rows are summed into their segment; negative ids and unnamed segments give zeros") {
  auto data = tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  check_tensor<float>(segment_sum(data, tensor::from_vector<int32_t>({0, 2, 0, -1}), 3), {3, 2},
                      {6, 8, 0, 0, 3, 4});
  auto ints = tensor::from_vector<int64_t>({1, 2, 3, 4}, {4});
  check_tensor<int64_t>(segment_sum(ints, tensor::from_vector<int64_t>({1, 1, 1, 0}), 2), {2},
                        {4, 6});
}

TEST_CASE("ids of rank 2 cover the first two dims of data") {
  // data = arange(8).reshape(2, 2, 2); ids [[1, 0], [1, 1]]: segment 0 is data[0, 1],
  // segment 1 is data[0, 0] + data[1, 0] + data[1, 1].
  check_tensor<double>(
      segment_sum(iota<double>({2, 2, 2}), tensor::from_vector<int32_t>({1, 0, 1, 1}, {2, 2}), 2),
      {2, 2}, {2, 3, 10, 13});
  check_tensor<int32_t>(
      segment_sum(iota<int32_t>({2, 2}), tensor::from_vector<int64_t>({0, 1, 1, 0}, {2, 2}), 2),
      {2}, {3, 3});
}

TEST_CASE("wide rows and empty cases") {
  const tensor out = segment_sum(tensor::filled<float>({3, 1500}, 1.0f),
                                 tensor::from_vector<int32_t>({0, 0, 1}), 2);
  int bad = 0;
  for (int64_t k = 0; k < 3000; ++k) bad += out.data<float>()[k] != (k < 1500 ? 2.0f : 1.0f);
  CHECK(bad == 0);
  check_tensor<float>(segment_sum(tensor::from_vector<float>({1, 2}, {1, 2}),
                                  tensor::from_vector<int32_t>({-1}), 0),
                      {0, 2}, {});
  check_tensor<float>(
      segment_sum(tensor::from_vector<float>({}, {0, 2}), tensor::from_vector<int32_t>({}), 2),
      {2, 2}, {0, 0, 0, 0});
}

TEST_CASE("segment errors name the id, the shapes or the count") {
  auto data = tensor::from_vector<float>({1, 2, 3}, {3});
  check_error(run_kernel("UnsortedSegmentSum", {data, tensor::from_vector<int32_t>({0, 3, 1}),
                                                tensor::scalar<int32_t>(3)}),
              "segment_ids[1] (flat) = 3 is not less than num_segments 3");
  check_error(run_kernel("UnsortedSegmentSum",
                         {data, tensor::from_vector<int32_t>({0, 1}), tensor::scalar<int32_t>(3)}),
              "segment_ids of shape [2] must be a prefix of the shape of data [3]");
  check_error(
      run_kernel_unchecked("UnsortedSegmentSum", {data, tensor::from_vector<int32_t>({0, 1}),
                                                  tensor::scalar<int32_t>(3)}),
      "segment_ids of shape [2] must be a prefix of the shape of data [3]");
  check_error(
      run_kernel_unchecked("UnsortedSegmentSum", {data, tensor::from_vector<int32_t>({0, 0, 0}),
                                                  tensor::scalar<int64_t>(-1)}),
      "num_segments -1 is negative");
  check_error(
      run_kernel_unchecked("UnsortedSegmentSum", {data, tensor::from_vector<int32_t>({0, 0, 0}),
                                                  tensor::from_vector<int32_t>({2})}),
      "num_segments must be a scalar, got shape [1]");
}

TEST_CASE("ops::unsorted_segment_sum infers [num_segments] + the trailing dims of data") {
  auto root = scope::new_root();
  auto data = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 3, 5}});
  auto ids = ops::placeholder(root, dtype::int32, {.shape = partial_shape{-1}});
  auto y = ops::unsorted_segment_sum(root, data, ids, ops::constant(root, int32_t{7}));
  CHECK(root.shape_of(y) == partial_shape{7, 3, 5});
  auto fed = ops::placeholder(root, dtype::int32);
  CHECK(root.shape_of(ops::unsorted_segment_sum(root, data, ids, fed)) == partial_shape{-1, 3, 5});
  REQUIRE(root.ok());
  auto ids2 = ops::placeholder(root, dtype::int32, {.shape = partial_shape{2, 4}});
  ops::unsorted_segment_sum(root.with_op_name("bad"), data, ids2, ops::constant(root, int32_t{7}));
  check_error(root.get_status(), "must be a prefix of the shape of data [?,3,5]");
}
