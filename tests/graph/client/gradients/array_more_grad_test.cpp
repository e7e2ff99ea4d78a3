// Gradients of MirrorPad, MirrorPadGrad, PadV2, ReverseV2, BroadcastTo, TopKV2, SpaceToBatchND
// and BatchToSpaceND, checked against central differences on ramp-weighted outputs, so a
// gradient routed to the wrong element cannot pass.
#include <doctest/doctest.h>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;
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
  auto y = ops::print(root, x, {x}, {.message = "", .first_n = 0});
  check_gradient(root, x, ramp_weighted(root, y), iota<double>({2, 3}));
}

TEST_CASE("Where and InTopKV2 have no gradient: the path contributes nothing") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 2});
  auto coords = ops::cast(root, ops::where(root, x), dtype::float64);
  auto y = ops::add(root, ops::sum(root, coords, {0, 1}), ops::sum(root, x, {0, 1}));
  check_gradient(root, x, y, iota<double>({2, 2}, 1.0));
}

TEST_CASE("SplitV, GatherNd, ScatterNd, ReverseSequence and DepthToSpace gradients") {
  auto r1 = scope::new_root();
  auto x = input(r1, "x", {2, 5});
  auto parts = ops::split_v(r1, x, {1, -1, 2}, 1);
  auto y1 = ops::add_n(r1, {ops::sum(r1, ramp_weighted(r1, parts[0]), {0, 1}),
                            ops::sum(r1, ops::square(r1, parts[2]), {0, 1})});
  check_gradient(r1, x, y1, iota<double>({2, 5}, -1.0));

  auto r2 = scope::new_root();
  auto p = input(r2, "p", {3, 2});
  auto idx = ops::constant(r2, tensor::from_vector<int32_t>({2, 1, 0, 0, 2, 1}, {3, 2}));
  check_gradient(r2, p, ramp_weighted(r2, ops::gather_nd(r2, p, idx)), iota<double>({3, 2}));

  auto r3 = scope::new_root();
  auto u = input(r3, "u", {3});
  auto at = ops::constant(r3, tensor::from_vector<int64_t>({1, 3, 1}, {3, 1}));
  auto shp = ops::constant(r3, tensor::from_vector<int64_t>({4}));
  check_gradient(r3, u, ramp_weighted(r3, ops::scatter_nd(r3, at, u, shp)), iota<double>({3}, 1.0));

  auto r4 = scope::new_root();
  auto q = input(r4, "q", {3, 4});
  auto lens = ops::constant(r4, tensor::from_vector<int64_t>({4, 2, 0}));
  check_gradient(r4, q, ramp_weighted(r4, ops::reverse_sequence(r4, q, lens, 1)),
                 iota<double>({3, 4}));

  auto r5 = scope::new_root();
  auto d = input(r5, "d", {1, 2, 2, 8});
  auto sp = ops::depth_to_space(r5, d, 2);
  check_gradient(r5, d, ramp_weighted(r5, ops::square(r5, sp)), iota<double>({1, 2, 2, 8}, -5.0));
}

TEST_CASE("CheckNumerics, EnsureShape, IdentityN and Snapshot pass gradients; PreventGradient refuses") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 2});
  auto a = ops::check_numerics(root, x, "x");
  auto b = ops::ensure_shape(root, a, partial_shape{2, -1});
  auto c = ops::identity_n(root, {b, ops::constant(root, int32_t{1})});
  auto y = ops::snapshot(root, ops::square(root, c[0]));
  check_gradient(root, x, ramp_weighted(root, y), iota<double>({2, 2}, 1.0));

  auto r2 = scope::new_root();
  auto z = input(r2, "z", {2});
  auto w = ops::prevent_gradient(r2, z, "no second order here");
  std::vector<output> grads;
  auto st = add_symbolic_gradients(r2, {ops::sum(r2, w, {0})}, {z}, &grads);
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("gradient explicitly disabled by node 'PreventGradient'") !=
        std::string::npos);
  CHECK(st.message().find("no second order here") != std::string::npos);
}

TEST_CASE("MatrixDiag, MatrixDiagPart, MatrixSetDiag and MatrixBandPart gradients") {
  auto r1 = scope::new_root();
  auto d = input(r1, "d", {2, 3});
  check_gradient(r1, d, ramp_weighted(r1, ops::matrix_diag(r1, d)), iota<double>({2, 3}));
  for (const partial_shape& shape : {partial_shape{3, 3}, partial_shape{2, 3}}) {
    CAPTURE(shape.to_string());
    auto r2 = scope::new_root();
    auto m = input(r2, "m", shape);
    check_gradient(r2, m, ramp_weighted(r2, ops::matrix_diag_part(r2, m)),
                   iota<double>(shape.to_shape()));
  }
  auto r3 = scope::new_root();
  auto m3 = input(r3, "m", {3, 2});
  auto v3 = input(r3, "v", {2});
  check_gradients(r3, {m3, v3}, ramp_weighted(r3, ops::square(r3, ops::matrix_set_diag(r3, m3, v3))),
                  {iota<double>({3, 2}, 0.5), iota<double>({2}, -1.0)});
  auto r4 = scope::new_root();
  auto m4 = input(r4, "m", {3, 4});
  check_gradient(r4, m4, ramp_weighted(r4, ops::matrix_band_part(r4, m4, 1, 0)),
                 iota<double>({3, 4}));
}

TEST_CASE("Reverse (v1), Roll, Diag and DiagPart gradients") {
  auto r1 = scope::new_root();
  auto x = input(r1, "x", {2, 3});
  auto flags = ops::constant(r1, tensor::from_vector<bool>({true, false}));
  check_gradient(r1, x, ramp_weighted(r1, ops::reverse_v1(r1, x, flags)), iota<double>({2, 3}));
  auto r2 = scope::new_root();
  auto y = input(r2, "y", {3, 4});
  auto rolled = ops::roll(r2, y, ops::constant(r2, tensor::from_vector<int32_t>({1, -5})),
                          ops::constant(r2, tensor::from_vector<int32_t>({0, 1})));
  check_gradient(r2, y, ramp_weighted(r2, rolled), iota<double>({3, 4}));
  auto r3 = scope::new_root();
  auto d = input(r3, "d", {2, 2});
  check_gradient(r3, d, ramp_weighted(r3, ops::diag(r3, d)), iota<double>({2, 2}, 1.0));
  auto r4 = scope::new_root();
  auto m = input(r4, "m", {3, 3});
  check_gradient(r4, m, ramp_weighted(r4, ops::diag_part(r4, m)), iota<double>({3, 3}));
}
