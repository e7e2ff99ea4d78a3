// BroadcastGradientArgs and StopGradient kernels.
#include <vector>

#include "graph/client/ops/nn_ops.hpp"
#include "graph/util/broadcast_reduction.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::run_kernel;
using caflow::testing::run_kernel_unchecked;
using caflow::testing::vec32;

namespace {

struct reduction {
  std::vector<int32_t> r0, r1;
};

reduction args(const std::vector<int32_t>& s0, const std::vector<int32_t>& s1) {
  auto r = run_kernel("BroadcastGradientArgs", {vec32(s0), vec32(s1)});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  REQUIRE(r->size() == 2);
  return {r->at(0).to_vector<int32_t>(), r->at(1).to_vector<int32_t>()};
}

using v32 = std::vector<int32_t>;

}  // namespace

TEST_CASE("BroadcastGradientArgs: the dims each side was broadcast along") {
  // [2,3] + [3]: s1 was repeated along dim 0.
  auto r = args({2, 3}, {3});
  CHECK(r.r0 == v32{});
  CHECK(r.r1 == v32{0});
  r = args({2, 3, 4}, {2, 1, 4});
  CHECK(r.r0 == v32{});
  CHECK(r.r1 == v32{1});
  // A scalar against a matrix: everything.
  r = args({}, {2, 3});
  CHECK(r.r0 == v32{0, 1});
  CHECK(r.r1 == v32{});
  r = args({5, 1}, {1, 7});
  CHECK(r.r0 == v32{1});
  CHECK(r.r1 == v32{0});
  // Dims where both are 1 go to both sides (as in TensorFlow).
  r = args({1}, {1});
  CHECK(r.r0 == v32{0});
  CHECK(r.r1 == v32{0});
  r = args({2, 1, 1}, {1, 3, 1});
  CHECK(r.r0 == v32{1, 2});
  CHECK(r.r1 == v32{0, 2});
  r = args({4, 1}, {3, 1, 1});
  CHECK(r.r0 == v32{0, 2});
  CHECK(r.r1 == v32{1, 2});
  // A 0-sized dim broadcasts against 1 like any other size.
  r = args({0, 3}, {1, 3});
  CHECK(r.r0 == v32{});
  CHECK(r.r1 == v32{0});
  r = args({2, 3}, {2, 3});
  CHECK(r.r0 == v32{});
  CHECK(r.r1 == v32{});
}

TEST_CASE("BroadcastGradientArgs with int64 shapes") {
  auto r = run_kernel("BroadcastGradientArgs", {tensor::from_vector<int64_t>({6, 1, 5}),
                                                tensor::from_vector<int64_t>({4, 1})});
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  check_tensor(r->at(0), {1}, std::vector<int64_t>{1});
  check_tensor(r->at(1), {2}, std::vector<int64_t>{0, 2});
}

TEST_CASE("BroadcastGradientArgs refuses shapes that do not broadcast and non-vectors") {
  // The shape function sees constant shapes and fails at graph construction already.
  check_error(run_kernel("BroadcastGradientArgs", {vec32({2, 3}), vec32({4})}),
              "incompatible shapes for broadcasting: [2,3] vs. [4]");
  check_error(run_kernel_unchecked("BroadcastGradientArgs", {vec32({2, 3}), vec32({2, 4})}),
              "incompatible shapes for broadcasting: [2,3] vs. [2,4]");
  check_error(run_kernel_unchecked("BroadcastGradientArgs", {vec32({2, -3}), vec32({3})}),
              "shape s0 = [2,-3] has a negative dimension");
  check_error(run_kernel("BroadcastGradientArgs",
                         {tensor::from_vector<int32_t>({2, 3}, {1, 2}), vec32({3})}),
              "s0 must have rank 1, got shape [1,2]");
  check_error(run_kernel_unchecked("BroadcastGradientArgs", {vec32({3}), tensor::scalar(3)}),
              "s1 must be a vector, got shape []");
}

TEST_CASE("broadcast_gradient_reduction agrees with the kernel on the edge cases") {
  auto r = broadcast_gradient_reduction({}, {});
  REQUIRE(r.ok());
  CHECK(r->r0.empty());
  CHECK(r->r1.empty());
  const std::vector<int64_t> a = {3, 1, 2}, b = {1};
  r = broadcast_gradient_reduction(a, b);
  REQUIRE(r.ok());
  CHECK(r->r0 == std::vector<int64_t>{1});
  CHECK(r->r1 == std::vector<int64_t>{0, 1, 2});
}

TEST_CASE("StopGradient hands out its input's bytes for any dtype") {
  for (const tensor& x : {tensor::from_vector<float>({1, 2, 3}, {3, 1}),
                          tensor::from_vector<int64_t>({7}), tensor::scalar<bool>(true)}) {
    auto r = run_kernel("StopGradient", {x});
    REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
    CHECK(r->at(0).shares_buffer_with(x));
    CHECK(r->at(0).shape() == x.shape());
    CHECK(r->at(0).type() == x.type());
  }
}
