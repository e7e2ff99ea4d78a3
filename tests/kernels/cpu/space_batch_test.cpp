// SpaceToBatchND and BatchToSpaceND kernels and shape functions.
#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::iota;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;
using caflow::testing::vec32;

namespace {
tensor pairs32(std::vector<int32_t> v) {
  return tensor::from_vector<int32_t>(v, {static_cast<int64_t>(v.size() / 2), 2});
}
}  // namespace

TEST_CASE("SpaceToBatchND splits 2x2 blocks into the batch, as TF documents") {
  // [[[[1], [2]], [[3], [4]]]] with block [2, 2] gives [[[[1]]], [[[2]]], [[[3]]], [[[4]]]].
  auto x = tensor::from_vector<float>({1, 2, 3, 4}, {1, 2, 2, 1});
  auto out = run_kernel("SpaceToBatchND", {x, vec32({2, 2}), pairs32({0, 0, 0, 0})});
  REQUIRE(out.ok());
  check_tensor<float>(out->at(0), {4, 1, 1, 1}, {1, 2, 3, 4});
  // [1, 4, 4, 1] -> [4, 2, 2, 1]: batch entry (o_r * 2 + o_c) holds x[2i + o_r, 2j + o_c].
  auto big = run_kernel("SpaceToBatchND", {iota<int32_t>({1, 4, 4, 1}), vec32({2, 2}),
                                           pairs32({0, 0, 0, 0})});
  REQUIRE(big.ok());
  check_tensor<int32_t>(big->at(0), {4, 2, 2, 1},
                        {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15});
}

TEST_CASE("SpaceToBatchND pads with zeros; batch and depth are kept") {
  // x [2, 3, 2]: block [2] on dim 1 padded [1, 0] -> [4, 2, 2].
  auto x = iota<double>({2, 3, 2}, 1.0);
  auto out = run_kernel("SpaceToBatchND", {x, vec32({2}), pairs32({1, 0})});
  REQUIRE(out.ok());
  // Padded rows per batch b: [0, r0, r1, r2]; offset 0 takes rows 0, 2; offset 1 rows 1, 3.
  check_tensor<double>(out->at(0), {4, 2, 2},
                       {0, 0, 3, 4, 0, 0, 9, 10, 1, 2, 5, 6, 7, 8, 11, 12});
  // And back, cropping the pad away.
  auto back = run_kernel("BatchToSpaceND", {out->at(0), vec32({2}), pairs32({1, 0})});
  REQUIRE(back.ok());
  check_tensor(back->at(0), x);
}

TEST_CASE("BatchToSpaceND interleaves the batch back and crops") {
  auto b = tensor::from_vector<int64_t>({1, 2, 3, 4}, {4, 1, 1, 1});
  auto out = run_kernel("BatchToSpaceND", {b, vec32({2, 2}), pairs32({0, 0, 0, 0})});
  REQUIRE(out.ok());
  check_tensor<int64_t>(out->at(0), {1, 2, 2, 1}, {1, 2, 3, 4});
  auto cropped = run_kernel("BatchToSpaceND", {b, vec32({2, 2}), pairs32({1, 0, 0, 1})});
  REQUIRE(cropped.ok());
  check_tensor<int64_t>(cropped->at(0), {1, 1, 1, 1}, {3});
}

TEST_CASE("SpaceToBatchND and BatchToSpaceND reject bad block shapes, paddings and crops") {
  auto x = iota<float>({1, 3, 3, 1});
  check_error(run_kernel("SpaceToBatchND", {x, vec32({2, 2}), pairs32({0, 0, 0, 0})}),
              "padded spatial dimension 0 (3 + 0 + 0 = 3) is not divisible by block_shape[0] = 2");
  check_error(run_kernel_unchecked("SpaceToBatchND", {x, vec32({0, 1}), pairs32({0, 0, 0, 0})}),
              "block_shape must be positive");
  check_error(run_kernel("SpaceToBatchND", {x, vec32({1, 1}), pairs32({0, -1, 0, 0})}),
              "paddings must be non-negative");
  check_error(run_kernel_unchecked("SpaceToBatchND", {x, vec32({1, 1}), pairs32({0, 0})}),
              "paddings must have shape [2,2]");
  check_error(run_kernel("SpaceToBatchND", {iota<float>({3}), vec32({1, 1}), pairs32({0, 0, 0, 0})}),
              "must have rank at least 3");
  check_error(run_kernel("BatchToSpaceND", {x, vec32({2, 1}), pairs32({0, 0, 0, 0})}),
              "input batch dimension 1 is not divisible by the product of block_shape [2,1]");
  check_error(run_kernel_unchecked("BatchToSpaceND", {iota<float>({2, 1, 1}), vec32({2}),
                                                      pairs32({1, 2})}),
              "crops[0] = [1, 2] exceed spatial dimension 0 of size 2");
}

TEST_CASE("SpaceToDepth and DepthToSpace move 2x2 blocks into the depth and back") {
  // [1, 2, 2, 1] -> [1, 1, 1, 4], as TF documents.
  auto x = tensor::from_vector<float>({1, 2, 3, 4}, {1, 2, 2, 1});
  auto d = run_kernel("SpaceToDepth", {x}, {{"block_size", int64_t{2}}});
  REQUIRE(d.ok());
  check_tensor<float>(d->at(0), {1, 1, 1, 4}, {1, 2, 3, 4});
  // Depth 2 blocks keep each pixel's channels together: [1, 4, 4, 2] round trip.
  auto y = iota<int32_t>({2, 4, 4, 2});
  auto deep = run_kernel("SpaceToDepth", {y}, {{"block_size", int64_t{2}}});
  REQUIRE(deep.ok());
  CHECK(deep->at(0).shape() == tensor_shape{2, 2, 2, 8});
  // Output pixel (0, 0, 1) holds input pixels (0,2), (0,3), (1,2), (1,3), two channels each.
  const int32_t* v = deep->at(0).data<int32_t>() + 8;
  CHECK(std::vector<int32_t>(v, v + 8) == std::vector<int32_t>{4, 5, 6, 7, 12, 13, 14, 15});
  auto back = run_kernel("DepthToSpace", {deep->at(0)}, {{"block_size", int64_t{2}}});
  REQUIRE(back.ok());
  check_tensor(back->at(0), y);
  check_error(run_kernel("SpaceToDepth", {iota<float>({1, 3, 2, 1})}, {{"block_size", int64_t{2}}}),
              "is not divisible by block_size 2");
  check_error(run_kernel("DepthToSpace", {iota<float>({1, 1, 1, 6})}, {{"block_size", int64_t{2}}}),
              "is not divisible by block_size * block_size = 4");
  check_error(run_kernel("DepthToSpace", {iota<float>({1, 1, 1, 4})}, {{"block_size", int64_t{1}}}),
              "block_size");
}
