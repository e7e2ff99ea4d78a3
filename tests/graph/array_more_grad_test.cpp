// Gradients of MirrorPad, MirrorPadGrad, PadV2, ReverseV2, BroadcastTo, TopKV2, SpaceToBatchND
// and BatchToSpaceND, checked against central differences on ramp-weighted outputs, so a
// gradient routed to the wrong element cannot pass.
#include <doctest/doctest.h>

#include "actors/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::iota;
using caflow::testing::ramp_weighted;

namespace {

output input(const scope& s, const char* name, const partial_shape& shape) {
  return ops::placeholder(s.with_op_name(name), dtype::float64, {.shape = shape});
}

// Distinct values, so TopKV2's choice does not flip under the finite-difference step.
tensor spread(const tensor_shape& shape) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7) % 11) - 4.5 + 0.1 * i;
  return tensor::from_vector<double>(v, shape);
}

}  // namespace

TEST_CASE("MirrorPad's gradient folds the border back, in both modes") {
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    CAPTURE(mode);
    for (bool known : {true, false}) {
      auto root = scope::new_root();
      auto x = input(root, "x", known ? partial_shape{3, 4} : partial_shape::unknown());
      check_gradient(root, x, ramp_weighted(root, ops::mirror_pad(root, x, {{2, 1}, {1, 2}}, mode)),
                     iota<double>({3, 4}, 0.5));
    }
  }
}

TEST_CASE("MirrorPadGrad's gradient is MirrorPad") {
  auto root = scope::new_root();
  auto g = input(root, "g", {6, 3});
  auto paddings = ops::constant(root, std::vector<int32_t>{2, 1, 1, 0}, tensor_shape{2, 2});
  check_gradient(root, g, ramp_weighted(root, ops::mirror_pad_grad(root, g, paddings, "REFLECT")),
                 iota<double>({6, 3}, -2.0));
}

TEST_CASE("PadV2's gradient is the middle of the incoming one") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  auto paddings = ops::constant(root, std::vector<int32_t>{1, 0, 2, 1}, tensor_shape{2, 2});
  auto y = ops::pad_v2(root, x, paddings, ops::constant(root, 3.0));
  check_gradient(root, x, ramp_weighted(root, y), iota<double>({2, 3}));
}

TEST_CASE("ReverseV2's gradient reverses back") {
  auto root = scope::new_root();
  auto x = input(root, "x", partial_shape::unknown());
  check_gradient(root, x, ramp_weighted(root, ops::reverse(root, x, {0, 2})),
                 iota<double>({2, 3, 2}));
}

TEST_CASE("BroadcastTo's gradient sums over the broadcast dimensions") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto x = input(root, "x", known ? partial_shape{3, 1} : partial_shape::unknown());
    check_gradient(root, x, ramp_weighted(root, ops::broadcast_to(root, x, {2, 3, 4})),
                   iota<double>({3, 1}, 1.0));
  }
}

TEST_CASE("TopKV2's gradient goes to the chosen elements") {
  for (bool known : {true, false}) {
    CAPTURE(known);
    auto root = scope::new_root();
    auto x = input(root, "x", known ? partial_shape{2, 3, 5} : partial_shape::unknown());
    auto top = ops::top_k(root, x, 2);
    check_gradient(root, x, ramp_weighted(root, top[0]), spread({2, 3, 5}));
  }
}

TEST_CASE("SpaceToBatchND and BatchToSpaceND differentiate through each other") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3, 4, 1});
  auto b = ops::space_to_batch_nd(root, x, {2, 2}, {{1, 0}, {0, 2}});
  check_gradient(root, x, ramp_weighted(root, b), iota<double>({2, 3, 4, 1}));
  auto r2 = scope::new_root();
  auto y = input(r2, "y", {8, 2, 3, 1});
  auto s = ops::batch_to_space_nd(r2, y, {2, 2}, {{1, 0}, {0, 2}});
  check_gradient(r2, y, ramp_weighted(r2, s), iota<double>({8, 2, 3, 1}));
}

TEST_CASE("Print passes the gradient through") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3});
  auto y = ops::print(root, x, {x}, {.first_n = 0});
  check_gradient(root, x, ramp_weighted(root, y), iota<double>({2, 3}));
}

TEST_CASE("Where and InTopKV2 have no gradient: the path contributes nothing") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 2});
  auto coords = ops::cast(root, ops::where(root, x), dtype::float64);
  auto y = ops::add(root, ops::sum(root, coords, {0, 1}), ops::sum(root, x, {0, 1}));
  check_gradient(root, x, y, iota<double>({2, 2}, 1.0));
}
