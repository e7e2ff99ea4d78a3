// Gradients of DepthwiseConv2dNative (and its backprops), dilated Conv2D, FusedBatchNormV3 (and
// FusedBatchNormGradV3, second order) and LRN, checked against central differences.
#include <doctest/doctest.h>

#include <cmath>

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/gradient_checker.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_gradient;
using caflow::testing::check_gradients;
using caflow::testing::ramp_weighted;

namespace {

output input(const scope& s, const char* name, const partial_shape& shape) {
  return ops::placeholder(s.with_op_name(name), dtype::float64, {.shape = shape});
}

tensor wavy(const tensor_shape& shape, double phase) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + phase);
  return tensor::from_vector<double>(v, shape);
}

}  // namespace

TEST_CASE("DepthwiseConv2dNative's gradient for input and filter") {
  for (const ops::conv2d_attrs& a :
       {ops::conv2d_attrs{.strides = {1, 1, 1, 1}, .padding = "VALID"},
        ops::conv2d_attrs{.strides = {1, 2, 2, 1}, .padding = "SAME"},
        ops::conv2d_attrs{.strides = {1, 1, 1, 1}, .padding = "SAME", .dilations = {1, 2, 1, 1}}}) {
    CAPTURE(a.padding);
    auto root = scope::new_root();
    auto x = input(root, "x", {2, 5, 4, 2});
    auto w = input(root, "w", {3, 2, 2, 2});
    auto y = ops::depthwise_conv2d_native(root, x, w, a);
    check_gradients(root, {x, w}, ramp_weighted(root, y),
                    {wavy({2, 5, 4, 2}, 0.2), wavy({3, 2, 2, 2}, 1.1)});
  }
}

TEST_CASE("DepthwiseConv2dNative's backprops differentiate back into the family") {
  const ops::conv2d_attrs a{.strides = {1, 2, 1, 1}, .padding = "SAME"};
  auto root = scope::new_root();
  auto w = input(root, "w", {2, 2, 2, 1});
  auto g = input(root, "g", {1, 2, 3, 2});
  auto sizes = ops::constant(root, tensor::from_vector<int32_t>({1, 4, 3, 2}));
  auto dx = ops::depthwise_conv2d_native_backprop_input(root, sizes, w, g, a);
  check_gradients(root, {w, g}, ramp_weighted(root, dx),
                  {wavy({2, 2, 2, 1}, 0.5), wavy({1, 2, 3, 2}, 1.5)});
  auto r2 = scope::new_root();
  auto x = input(r2, "x", {1, 4, 3, 2});
  auto g2 = input(r2, "g", {1, 2, 3, 2});
  auto fsizes = ops::constant(r2, tensor::from_vector<int32_t>({2, 2, 2, 1}));
  auto dw = ops::depthwise_conv2d_native_backprop_filter(r2, x, fsizes, g2, a);
  check_gradients(r2, {x, g2}, ramp_weighted(r2, dw),
                  {wavy({1, 4, 3, 2}, 0.4), wavy({1, 2, 3, 2}, 2.5)});
}

TEST_CASE("Conv2D with dilations: gradients for input and filter") {
  auto root = scope::new_root();
  auto x = input(root, "x", {1, 6, 5, 2});
  auto w = input(root, "w", {2, 2, 2, 3});
  auto y = ops::conv2d(root, x, w, {.strides = {1, 1, 1, 1}, .padding = "SAME",
                                    .dilations = {1, 2, 3, 1}});
  check_gradients(root, {x, w}, ramp_weighted(root, y),
                  {wavy({1, 6, 5, 2}, 0.0), wavy({2, 2, 2, 3}, 0.6)});
}

TEST_CASE("FusedBatchNormV3's gradient, training and inference") {
  for (bool training : {true, false}) {
    CAPTURE(training);
    auto root = scope::new_root();
    auto x = input(root, "x", {2, 2, 1, 3});
    auto scale = input(root, "scale", {3});
    auto offset = input(root, "offset", {3});
    auto mean = ops::constant(root, tensor::from_vector<double>({0.1, -0.2, 0.3}));
    auto var = ops::constant(root, tensor::from_vector<double>({1.5, 0.5, 2.0}));
    auto bn = ops::fused_batch_norm(root, x, scale, offset, mean, var,
                                    {.epsilon = 0.001f, .is_training = training});
    check_gradients(root, {x, scale, offset}, ramp_weighted(root, bn.y),
                    {wavy({2, 2, 1, 3}, 0.3), tensor::from_vector<double>({1.0, 2.0, -0.5}),
                     tensor::from_vector<double>({0.0, 1.0, 2.0})});
  }
}

TEST_CASE("FusedBatchNormGradV3's gradient (second order), training and inference") {
  for (bool training : {true, false}) {
    CAPTURE(training);
    auto root = scope::new_root();
    auto dy = input(root, "dy", {2, 2, 1, 2});
    auto x = input(root, "x", {2, 2, 1, 2});
    auto scale = input(root, "scale", {2});
    output mean, var;
    if (training) {
      // The reserve spaces as the forward op computes them from x.
      auto bn = ops::fused_batch_norm(root, x, scale, ops::constant(root, tensor::from_vector<double>({0, 0})),
                                      ops::constant(root, tensor(dtype::float64, {0})),
                                      ops::constant(root, tensor(dtype::float64, {0})),
                                      {.epsilon = 0.001f});
      mean = ops::stop_gradient(root, bn.reserve_space_1);
      var = ops::stop_gradient(root, bn.reserve_space_2);
    } else {
      mean = ops::constant(root, tensor::from_vector<double>({0.2, -0.1}));
      var = ops::constant(root, tensor::from_vector<double>({1.2, 0.7}));
    }
    auto g = ops::fused_batch_norm_grad(root, dy, x, scale, mean, var,
                                        ops::constant(root, tensor(dtype::float64, {0})),
                                        {.epsilon = 0.001f, .is_training = training});
    auto loss = ops::add_n(root, {ops::sum(root, ramp_weighted(root, g.x_backprop), {0, 1, 2, 3}),
                                  ops::sum(root, ramp_weighted(root, g.scale_backprop), {0}),
                                  ops::sum(root, ramp_weighted(root, g.offset_backprop), {0})});
    check_gradients(root, {dy, x, scale}, loss,
                    {wavy({2, 2, 1, 2}, 0.7), wavy({2, 2, 1, 2}, 2.1),
                     tensor::from_vector<double>({1.5, -0.8})});
  }
}

TEST_CASE("LRN's gradient") {
  auto root = scope::new_root();
  auto x = input(root, "x", {1, 2, 1, 6});
  auto y = ops::lrn(root, x, {.depth_radius = 2, .bias = 1.5f, .alpha = 0.3f, .beta = 0.75f});
  check_gradient(root, x, ramp_weighted(root, y), wavy({1, 2, 1, 6}, 0.4));
}

TEST_CASE("MaxPool3D and AvgPool3D gradients, and their gradients' gradients") {
  const ops::pool3d_attrs a{.ksize = {1, 2, 2, 2, 1}, .strides = {1, 1, 2, 1, 1}, .padding = "SAME"};
  auto root = scope::new_root();
  auto x = input(root, "x", {1, 3, 4, 3, 2});
  check_gradient(root, x, ramp_weighted(root, ops::max_pool3d(root, x, a)), wavy({1, 3, 4, 3, 2}, 0.3));
  auto r2 = scope::new_root();
  auto x2 = input(r2, "x", partial_shape::unknown());
  check_gradient(r2, x2, ramp_weighted(r2, ops::avg_pool3d(r2, x2, a)), wavy({1, 3, 4, 3, 2}, 0.8));
  // The gradients are linear in grad: their own gradients are checked for it.
  auto r3 = scope::new_root();
  auto g = input(r3, "g", {1, 3, 2, 3, 2});
  auto sizes = ops::constant(r3, tensor::from_vector<int32_t>({1, 3, 4, 3, 2}));
  check_gradient(r3, g, ramp_weighted(r3, ops::avg_pool3d_grad(r3, sizes, g, a)),
                 wavy({1, 3, 2, 3, 2}, 1.0));
  auto r4 = scope::new_root();
  auto xv = ops::constant(r4, wavy({1, 3, 4, 3, 2}, 0.3));
  auto yv = ops::max_pool3d(r4, xv, a);
  auto g4 = input(r4, "g", {1, 3, 2, 3, 2});
  check_gradient(r4, g4, ramp_weighted(r4, ops::max_pool3d_grad(r4, xv, yv, g4, a)),
                 wavy({1, 3, 2, 3, 2}, 1.7));
  auto r5 = scope::new_root();
  auto xw = ops::constant(r5, wavy({1, 3, 4, 3, 2}, 0.3));
  auto yw = ops::max_pool3d(r5, xw, a);
  auto g5 = input(r5, "g", {1, 3, 4, 3, 2});
  check_gradient(r5, g5, ramp_weighted(r5, ops::max_pool3d_grad_grad(r5, xw, yw, g5, a)),
                 wavy({1, 3, 4, 3, 2}, 2.2));
}

TEST_CASE("FusedBatchNorm and FusedBatchNormV2, the older versions, differentiate alike") {
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2"}) {
    CAPTURE(op);
    auto root = scope::new_root();
    auto x = input(root, "x", {2, 1, 2, 3});
    auto scale = input(root, "scale", {3});
    auto offset = ops::constant(root, tensor::from_vector<double>({0.5, 0.0, -0.5}));
    auto empty = ops::constant(root, tensor(dtype::float64, {0}));
    const operation bn = node_builder(root, op).input(x).input(scale).input(offset).input(empty)
                             .input(empty).attr("epsilon", 0.001f).finalize();
    REQUIRE(root.ok());
    check_gradients(root, {x, scale}, ramp_weighted(root, ops::square(root, bn.out(0))),
                    {wavy({2, 1, 2, 3}, 0.9), tensor::from_vector<double>({1.0, -2.0, 0.5})});
  }
}

TEST_CASE("Conv3D's gradient, and its backprops' gradients") {
  const ops::conv3d_attrs a{.strides = {1, 1, 2, 1, 1}, .padding = "SAME", .dilations = {1, 1, 1, 2, 1}};
  auto root = scope::new_root();
  auto x = input(root, "x", {1, 2, 4, 5, 2});
  auto w = input(root, "w", {2, 2, 2, 2, 3});
  check_gradients(root, {x, w}, ramp_weighted(root, ops::conv3d(root, x, w, a)),
                  {wavy({1, 2, 4, 5, 2}, 0.1), wavy({2, 2, 2, 2, 3}, 0.8)});
  auto r2 = scope::new_root();
  auto w2 = input(r2, "w", {2, 2, 2, 2, 3});
  auto g2 = input(r2, "g", {1, 2, 2, 5, 3});
  auto sizes = ops::constant(r2, tensor::from_vector<int32_t>({1, 2, 4, 5, 2}));
  check_gradients(r2, {w2, g2}, ramp_weighted(r2, ops::conv3d_backprop_input(r2, sizes, w2, g2, a)),
                  {wavy({2, 2, 2, 2, 3}, 0.3), wavy({1, 2, 2, 5, 3}, 1.3)});
  auto r3 = scope::new_root();
  auto x3 = input(r3, "x", {1, 2, 4, 5, 2});
  auto g3 = input(r3, "g", {1, 2, 2, 5, 3});
  auto fsizes = ops::constant(r3, tensor::from_vector<int32_t>({2, 2, 2, 2, 3}));
  check_gradients(r3, {x3, g3},
                  ramp_weighted(r3, ops::conv3d_backprop_filter(r3, x3, fsizes, g3, a)),
                  {wavy({1, 2, 4, 5, 2}, 0.6), wavy({1, 2, 2, 5, 3}, 2.3)});
}

TEST_CASE("ResizeBilinear and ResizeNearestNeighbor gradients") {
  const caflow::testing::gradient_check_options f32{.delta = 1e-2, .tolerance = 1e-2};
  for (bool aligned : {false, true}) {
    CAPTURE(aligned);
    auto root = scope::new_root();
    auto x = ops::placeholder(root.with_op_name("x"), dtype::float32,
                              {.shape = partial_shape{1, 3, 4, 2}});
    auto y = ops::resize_bilinear(root, x, {5, 7}, {.align_corners = aligned});
    check_gradient(root, x, ramp_weighted(root, y), caflow::testing::iota<float>({1, 3, 4, 2}), f32);
    auto r2 = scope::new_root();
    auto x2 = input(r2, "x", {1, 3, 4, 2});
    auto y2 = ops::resize_nearest_neighbor(r2, x2, {5, 7}, {.align_corners = aligned});
    check_gradient(r2, x2, ramp_weighted(r2, y2), wavy({1, 3, 4, 2}, 0.2));
  }
}

TEST_CASE("MaxPoolWithArgmax and its gradient ops' gradients") {
  const ops::argmax_pool_attrs a{.ksize = {1, 2, 2, 1}, .strides = {1, 1, 2, 1}, .padding = "SAME"};
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3, 4, 2});
  auto p = ops::max_pool_with_argmax(root, x, a);
  check_gradient(root, x, ramp_weighted(root, p[0]), wavy({2, 3, 4, 2}, 0.5));
  auto r2 = scope::new_root();
  auto xc = ops::constant(r2, wavy({2, 3, 4, 2}, 0.5));
  auto p2 = ops::max_pool_with_argmax(r2, xc, a);
  auto g = input(r2, "g", {2, 3, 2, 2});
  check_gradient(r2, g, ramp_weighted(r2, ops::max_pool_grad_with_argmax(r2, xc, g, p2[1], a)),
                 wavy({2, 3, 2, 2}, 1.5));
  auto gi = input(r2, "gi", {2, 3, 4, 2});
  check_gradient(r2, gi, ramp_weighted(r2, ops::max_pool_grad_grad_with_argmax(r2, xc, gi, p2[1], a)),
                 wavy({2, 3, 4, 2}, 2.5));
}

TEST_CASE("SparseToDense's gradient: values where they went, the default elsewhere") {
  auto root = scope::new_root();
  auto values = input(root, "values", {2});
  auto fill = input(root, "fill", {});
  auto idx = ops::constant(root, tensor::from_vector<int32_t>({0, 1, 2, 0}, {2, 2}));
  auto shp = ops::constant(root, tensor::from_vector<int32_t>({3, 2}));
  auto dense = ops::sparse_to_dense(root, idx, shp, values, fill);
  check_gradients(root, {values, fill}, ramp_weighted(root, ops::square(root, dense)),
                  {tensor::from_vector<double>({1.5, -2.0}), tensor::scalar<double>(0.5)});
  auto r2 = scope::new_root();
  auto scalar = input(r2, "v", {});
  auto vec_idx = ops::constant(r2, tensor::from_vector<int64_t>({1, 3}));
  auto d2 = ops::sparse_to_dense(r2, vec_idx, ops::constant(r2, tensor::from_vector<int64_t>({5})),
                                 scalar, ops::constant(r2, 0.0));
  check_gradient(r2, scalar, ramp_weighted(r2, d2), tensor::scalar<double>(2.0));
}

TEST_CASE("Prelu's gradient for x and for a per-channel alpha") {
  auto root = scope::new_root();
  auto x = input(root, "x", {2, 3, 4});
  auto alpha = input(root, "alpha", {4});
  auto y = ops::prelu(root, x, alpha);
  // wavy values stay away from 0, where Prelu has its kink.
  check_gradients(root, {x, alpha}, ramp_weighted(root, y),
                  {wavy({2, 3, 4}, 0.3), tensor::from_vector<double>({0.1, 0.2, -0.5, 1.5})});
  auto scalar = input(root, "scalar", {});
  check_gradients(root, {x, scalar}, ramp_weighted(root, ops::prelu(root, x, scalar)),
                  {wavy({2, 3, 4}, 0.3), tensor::scalar<double>(0.25)});
}
