// ReverseV2 and BroadcastTo kernels and shape functions.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;
using caflow::testing::vec32;

TEST_CASE("ReverseV2 along one, several or no dimensions") {
  auto x = iota<int32_t>({2, 3});
  auto cols = run_kernel("ReverseV2", {x, vec32({1})});
  REQUIRE(cols.ok());
  check_tensor<int32_t>(cols->at(0), {2, 3}, {2, 1, 0, 5, 4, 3});
  auto rows = run_kernel("ReverseV2", {x, tensor::from_vector<int64_t>({-2})});
  REQUIRE(rows.ok());
  check_tensor<int32_t>(rows->at(0), {2, 3}, {3, 4, 5, 0, 1, 2});
  auto both = run_kernel("ReverseV2", {x, vec32({0, 1})});
  REQUIRE(both.ok());
  check_tensor<int32_t>(both->at(0), {2, 3}, {5, 4, 3, 2, 1, 0});
  auto none = run_kernel("ReverseV2", {x, vec32({})});
  REQUIRE(none.ok());
  CHECK(none->at(0).shares_buffer_with(x));
  auto mid = run_kernel("ReverseV2", {iota<double>({2, 2, 2}), vec32({1})});
  REQUIRE(mid.ok());
  check_tensor<double>(mid->at(0), {2, 2, 2}, {2, 3, 0, 1, 6, 7, 4, 5});
  auto b = run_kernel("ReverseV2", {tensor::from_vector<bool>({true, false, false}), vec32({0})});
  REQUIRE(b.ok());
  check_tensor<bool>(b->at(0), {3}, {false, false, true});
}

TEST_CASE("ReverseV2 rejects out-of-range and repeated axes") {
  auto x = iota<float>({2, 3});
  check_error(run_kernel("ReverseV2", {x, vec32({2})}),
              "axis 2 is out of range for a tensor of rank 2");
  check_error(run_kernel_unchecked("ReverseV2", {x, vec32({1, -1})}),
              "names dimension 1 more than once");
  check_error(run_kernel("ReverseV2", {x, tensor::scalar<int32_t>(0)}), "input 1 must have rank 1");
}

TEST_CASE("BroadcastTo repeats along new and size-1 dimensions") {
  auto row = tensor::from_vector<float>({1, 2, 3});
  auto out = run_kernel("BroadcastTo", {row, vec32({2, 3})});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {2, 3}, {1, 2, 3, 1, 2, 3});
  auto col = run_kernel("BroadcastTo", {tensor::from_vector<int64_t>({1, 2}, {2, 1}),
                                        tensor::from_vector<int64_t>({2, 2, 3})});
  REQUIRE(col.ok());
  check_tensor<int64_t>(col->at(0), {2, 2, 3}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  auto scalar = run_kernel("BroadcastTo", {tensor::scalar<uint8_t>(7), vec32({2, 2})});
  REQUIRE(scalar.ok());
  check_tensor<uint8_t>(scalar->at(0), {2, 2}, {7, 7, 7, 7});
  auto same = run_kernel("BroadcastTo", {row, vec32({1, 3})});
  REQUIRE(same.ok());
  CHECK(same->at(0).shares_buffer_with(row));
  auto empty = run_kernel("BroadcastTo", {row, vec32({0, 3})});
  REQUIRE(empty.ok());
  CHECK(empty->at(0).shape() == tensor_shape{0, 3});
}

TEST_CASE("BroadcastTo rejects incompatible and lower-rank targets") {
  auto x = iota<float>({2, 3});
  check_error(run_kernel("BroadcastTo", {x, vec32({4, 3})}),
              "cannot broadcast a tensor of shape [2,3] to shape [4,3]: dimension 0 has size 2");
  check_error(run_kernel_unchecked("BroadcastTo", {x, vec32({6})}), "lower-rank shape [6]");
  check_error(run_kernel("BroadcastTo", {x, vec32({2, -3})}), "negative dimension");
}

TEST_CASE("ReverseSequence reverses each batch entry's prefix") {
  // Batch along dim 0, sequences along dim 1.
  auto x = iota<int32_t>({3, 4});
  auto out = run_kernel("ReverseSequence", {x, tensor::from_vector<int64_t>({4, 2, 0})},
                        {{"seq_dim", int64_t{1}}});
  REQUIRE(out.ok());
  check_tensor<int32_t>(out->at(0), {3, 4}, {3, 2, 1, 0, 5, 4, 6, 7, 8, 9, 10, 11});
  // Batch along dim 1 of [2, 2, 2], sequences along dim 0.
  auto t = run_kernel("ReverseSequence", {iota<float>({2, 2, 2}), vec32({2, 1})},
                      {{"seq_dim", int64_t{0}}, {"batch_dim", int64_t{1}}});
  REQUIRE(t.ok());
  check_tensor<float>(t->at(0), {2, 2, 2}, {4, 5, 2, 3, 0, 1, 6, 7});
  check_error(run_kernel("ReverseSequence", {x, vec32({5, 1, 1})}, {{"seq_dim", int64_t{1}}}),
              "seq_lengths[0] = 5 is not in [0, 4]");
  check_error(run_kernel("ReverseSequence", {x, vec32({1, 1})}, {{"seq_dim", int64_t{1}}}),
              "seq_lengths has 2 entries but dimension batch_dim = 0");
  check_error(run_kernel("ReverseSequence", {x, vec32({1, 1, 1})}, {{"seq_dim", int64_t{0}}}),
              "seq_dim and batch_dim must differ");
}

TEST_CASE("InvertPermutation and BroadcastArgs") {
  auto inv = run_kernel("InvertPermutation", {vec32({3, 4, 0, 2, 1})});
  REQUIRE(inv.ok());
  check_tensor<int32_t>(inv->at(0), {5}, {2, 4, 3, 0, 1});
  check_error(run_kernel("InvertPermutation", {vec32({0, 0, 1})}), "is not a permutation of 0..2");
  auto b = run_kernel("BroadcastArgs", {tensor::from_vector<int64_t>({2, 1, 3}),
                                        tensor::from_vector<int64_t>({4, 1})});
  REQUIRE(b.ok());
  check_tensor<int64_t>(b->at(0), {3}, {2, 4, 3});
  check_error(run_kernel("BroadcastArgs", {vec32({2, 3}), vec32({4, 3})}),
              "shapes [2,3] and [4,3] cannot be broadcast together");
}
