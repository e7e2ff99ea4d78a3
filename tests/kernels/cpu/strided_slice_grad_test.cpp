// StridedSliceGrad: dy written where StridedSlice read, zeros elsewhere, for strides,
// negative strides, shrunk, new and ellipsis axes, and the errors.
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
using caflow::testing::vec32;

namespace {

status_or<std::vector<tensor>> slice_grad(const std::vector<int32_t>& shape,
                                          const std::vector<int32_t>& begin,
                                          const std::vector<int32_t>& end,
                                          const std::vector<int32_t>& strides, const tensor& dy,
                                          std::map<std::string, attr_value> masks = {}) {
  return run_kernel("StridedSliceGrad",
                    {vec32(shape), vec32(begin), vec32(end), vec32(strides), dy}, std::move(masks));
}

tensor ok(const status_or<std::vector<tensor>>& r) {
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return r->at(0);
}

}  // namespace

TEST_CASE("every other column of a matrix") {
  // x[:, ::2] of a [2, 3] input reads columns 0 and 2.
  check_tensor<float>(ok(slice_grad({2, 3}, {0, 0}, {2, 3}, {1, 2},
                                    tensor::from_vector<float>({1, 2, 3, 4}, {2, 2}))),
                      {2, 3}, {1, 0, 2, 3, 0, 4});
}

TEST_CASE("negative strides write backwards") {
  // x[4:0:-2] of a [5] input reads elements 4 and 2.
  check_tensor<double>(ok(slice_grad({5}, {4}, {0}, {-2}, tensor::from_vector<double>({10, 20}))),
                       {5}, {0, 0, 20, 0, 10});
  // x[::-1, 1] of a [3, 2] input (begin and end masked on dim 0, dim 1 shrunk).
  check_tensor<int32_t>(
      ok(slice_grad({3, 2}, {0, 1}, {0, 2}, {-1, 1}, tensor::from_vector<int32_t>({7, 8, 9}),
                    {{"begin_mask", 1}, {"end_mask", 1}, {"shrink_axis_mask", 2}})),
      {3, 2}, {0, 9, 0, 8, 0, 7});
}

TEST_CASE("shrunk, new and ellipsis axes") {
  // x[1] of a [2, 3] input.
  check_tensor<int64_t>(
      ok(slice_grad({2, 3}, {1}, {2}, {1}, tensor::from_vector<int64_t>({7, 8, 9}),
                    {{"shrink_axis_mask", 1}})),
      {2, 3}, {0, 0, 0, 7, 8, 9});
  // x[..., newaxis, ::3] of a [2, 4] input: dy is [2, 1, 2], columns 0 and 3.
  check_tensor<float>(ok(slice_grad({2, 4}, {0, 0, 0}, {0, 0, 4}, {1, 1, 3},
                                    tensor::from_vector<float>({1, 2, 3, 4}, {2, 1, 2}),
                                    {{"ellipsis_mask", 1}, {"new_axis_mask", 2}})),
                      {2, 4}, {1, 0, 0, 2, 3, 0, 0, 4});
}

TEST_CASE("wide scatters agree with the plain loop") {
  // x[:, 1::2] of a [300, 1000] input, on the intra-op pool.
  const tensor dy = iota<float>({300, 500});
  const tensor out =
      ok(slice_grad({300, 1000}, {0, 1}, {300, 1000}, {1, 2}, dy, {{"begin_mask", 1}}));
  int bad = 0;
  for (int64_t r = 0; r < 300; ++r)
    for (int64_t c = 0; c < 1000; ++c) {
      const float want = c % 2 ? static_cast<float>(r * 500 + c / 2) : 0.0f;
      bad += out.data<float>()[r * 1000 + c] != want;
    }
  CHECK(bad == 0);
}

TEST_CASE("empty slices and empty inputs give zeros") {
  check_tensor<float>(ok(slice_grad({3}, {2}, {1}, {1}, tensor::from_vector<float>({}, {0}))), {3},
                      {0, 0, 0});
  check_tensor<float>(ok(slice_grad({0, 2}, {0}, {0}, {1}, tensor::from_vector<float>({}, {0, 2}))),
                      {0, 2}, {});
}

TEST_CASE("StridedSliceGrad errors name what is wrong") {
  check_error(
      slice_grad({2, 3}, {0, 0}, {2, 3}, {1, 2}, tensor::from_vector<float>({1, 2, 3}, {3})),
      "dy has shape [3] but the slice of shape [2,3] has shape [2,2]");
  check_error(run_kernel_unchecked("StridedSliceGrad",
                                   {vec32({2, 3}), vec32({0, 0}), vec32({2, 3}), vec32({1, 2}),
                                    tensor::from_vector<float>({1, 2, 3}, {3})}),
              "dy has shape [3] but the slice of shape [2,3] has shape [2,2]");
  check_error(
      run_kernel_unchecked("StridedSliceGrad", {vec32({2, -3}), vec32({0}), vec32({1}), vec32({1}),
                                                tensor::from_vector<float>({}, {0, 3})}),
      "shape [2,-3] has a negative dimension");
  check_error(slice_grad({2, 3}, {0, 0}, {2, 3}, {1, 0}, tensor::from_vector<float>({1}, {1})),
              "stride of dimension 1 is 0");
  check_error(
      run_kernel_unchecked("StridedSliceGrad", {tensor::scalar<int32_t>(3), vec32({0}), vec32({1}),
                                                vec32({1}), tensor::from_vector<float>({1}, {1})}),
      "shape must be a vector, got shape []");
}

TEST_CASE("ops::strided_slice_grad takes its shape from the shape vector") {
  auto root = scope::new_root();
  auto dy = ops::placeholder(root, dtype::float32);
  auto idx = [&](std::vector<int32_t> v) {
    return ops::constant(root, tensor::from_vector<int32_t>(v));
  };
  auto g = ops::strided_slice_grad(root, idx({4, 6}), idx({0, 0}), idx({4, 6}), idx({2, 3}), dy);
  CHECK(root.shape_of(g) == partial_shape{4, 6});
  auto fed = ops::placeholder(root, dtype::int32, {.shape = partial_shape{3}});
  CHECK(root.shape_of(ops::strided_slice_grad(root, fed, idx({0}), idx({1}), idx({1}), dy)) ==
        partial_shape::unknown_of_rank(3));
  REQUIRE(root.ok());
  auto dy3 = ops::placeholder(root, dtype::float32, {.shape = partial_shape{3, -1}});
  ops::strided_slice_grad(root.with_op_name("bad"), idx({4, 6}), idx({0, 0}), idx({4, 6}),
                          idx({2, 3}), dy3);
  check_error(root.get_status(), "dy has shape [3,?] but the slice of shape [4,6] has shape [2,2]");
}
