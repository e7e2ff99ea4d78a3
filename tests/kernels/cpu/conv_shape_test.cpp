// The convolution and pooling ops at graph construction: the client functions' attrs, the
// shapes inferred from partly known inputs (also NCHW and dilated ones, which have no CPU
// kernel), and errors naming the node.
#include <doctest/doctest.h>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/conv_ops.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;

namespace {

output placeholder(const scope& s, partial_shape shape, dtype type = dtype::float32) {
  return ops::placeholder(s, type, {.shape = std::move(shape)});
}

output sizes(const scope& s, std::vector<int32_t> v) {
  return ops::constant(s, tensor::from_vector<int32_t>(v));
}

void check_construction_error(const scope& s, const std::string& needle) {
  REQUIRE_FALSE(s.ok());
  const std::string message = s.get_status().message();
  CHECK_MESSAGE(message.find(needle) != std::string::npos, "'", message, "' lacks '", needle,
                "'");
}

}  // namespace

TEST_CASE("The Fashion-MNIST CNN's shapes are known through convs and pools") {
  auto root = scope::new_root();
  auto x = placeholder(root, {-1, 28, 28, 1});
  auto h1 = ops::conv2d(root, x, placeholder(root, {5, 5, 1, 32}));
  auto p1 = ops::max_pool(root, h1);
  auto h2 = ops::conv2d(root, p1, placeholder(root, {5, 5, 32, 64}));
  auto p2 = ops::avg_pool(root, h2, {});
  REQUIRE(root.ok());
  CHECK(root.shape_of(h1) == partial_shape{-1, 28, 28, 32});
  CHECK(root.shape_of(p1) == partial_shape{-1, 14, 14, 32});
  CHECK(root.shape_of(h2) == partial_shape{-1, 14, 14, 64});
  CHECK(root.shape_of(p2) == partial_shape{-1, 7, 7, 64});
}

TEST_CASE("ops::conv2d and ops::max_pool write TensorFlow's attrs") {
  auto root = scope::new_root();
  auto y = ops::conv2d(root.with_op_name("conv"), placeholder(root, {1, 5, 5, 1}),
                       placeholder(root, {3, 3, 1, 2}), {.strides = {1, 2, 2, 1}});
  auto p = ops::max_pool(root.with_op_name("pool"), y,
                         {.ksize = {1, 3, 3, 1}, .strides = {1, 1, 1, 1}, .padding = "SAME"});
  REQUIRE(root.ok());
  const auto conv = root.find_node("conv");
  REQUIRE(conv.has_value());
  CHECK(conv->op == "Conv2D");
  CHECK(conv->attrs.at("strides") == attr_value(std::vector<int>{1, 2, 2, 1}));
  CHECK(conv->attrs.at("padding") == attr_value("SAME"));
  CHECK(conv->attrs.at("data_format") == attr_value("NHWC"));
  CHECK(conv->attrs.at("dilations") == attr_value(std::vector<int>{1, 1, 1, 1}));
  CHECK(conv->attrs.at("use_cudnn_on_gpu") == attr_value(true));
  CHECK(conv->attrs.at("T") == attr_value(dtype::float32));
  const auto pool = root.find_node("pool");
  REQUIRE(pool.has_value());
  CHECK(pool->attrs.at("ksize") == attr_value(std::vector<int>{1, 3, 3, 1}));
  CHECK(root.shape_of(y) == partial_shape{1, 3, 3, 2});
  CHECK(root.shape_of(p) == partial_shape{1, 3, 3, 2});
}

TEST_CASE("Shapes with unknown dims, NCHW and dilations") {
  auto root = scope::new_root();
  // Unknown rows stay unknown; known columns are computed (VALID, stride 2: (28-5+2)/2 = 12).
  auto open = ops::conv2d(root, placeholder(root, {-1, -1, 28, 3}),
                          placeholder(root, {5, 5, 3, -1}),
                          {.strides = {1, 2, 2, 1}, .padding = "VALID"});
  CHECK(root.shape_of(open) == partial_shape{-1, -1, 12, -1});
  // Nothing known but the ranks.
  auto blind = ops::conv2d(root, placeholder(root, partial_shape::unknown()),
                           placeholder(root, partial_shape::unknown()));
  CHECK(root.shape_of(blind) == partial_shape::unknown_of_rank(4));
  // NCHW: [batch, depth, rows, cols].
  auto nchw = ops::conv2d(root, placeholder(root, {8, 3, 32, 32}), placeholder(root, {3, 3, 3, 16}),
                          {.strides = {1, 1, 2, 2}, .data_format = "NCHW"});
  CHECK(root.shape_of(nchw) == partial_shape{8, 16, 16, 16});
  auto pool_nchw = ops::max_pool(root, nchw,
                                 {.ksize = {1, 1, 2, 2}, .strides = {1, 1, 2, 2},
                                  .data_format = "NCHW"});
  CHECK(root.shape_of(pool_nchw) == partial_shape{8, 16, 8, 8});
  // Dilation 2 spreads a 3x3 filter over 5x5: VALID over 7x7 leaves 3x3.
  auto dilated = ops::conv2d(root, placeholder(root, {1, 7, 7, 1}), placeholder(root, {3, 3, 1, 1}),
                             {.padding = "VALID", .dilations = {1, 2, 2, 1}});
  CHECK(root.shape_of(dilated) == partial_shape{1, 3, 3, 1});
  REQUIRE(root.ok());
}

TEST_CASE("Backprop and pool-gradient shapes come from the size vectors or the other inputs") {
  auto root = scope::new_root();
  auto w = placeholder(root, {3, 3, 2, 4});
  auto dy = placeholder(root, {-1, 4, 4, 4});
  auto known = ops::conv2d_backprop_input(root, sizes(root, {5, 8, 8, 2}), w, dy,
                                          {.strides = {1, 2, 2, 1}});
  CHECK(root.shape_of(known) == partial_shape{5, 8, 8, 2});
  // Sizes known only at run time: the batch comes from out_backprop, the depth from filter.
  auto run_time = ops::conv2d_backprop_input(root, placeholder(root, {4}, dtype::int32), w,
                                             placeholder(root, {6, 4, 4, 4}));
  CHECK(root.shape_of(run_time) == partial_shape{6, -1, -1, 2});
  auto filter = ops::conv2d_backprop_filter(root, placeholder(root, {5, 8, 8, 2}),
                                            placeholder(root, {4}, dtype::int32), dy,
                                            {.strides = {1, 2, 2, 1}});
  CHECK(root.shape_of(filter) == partial_shape{-1, -1, 2, 4});
  auto x = placeholder(root, {2, 9, 9, 3});
  auto pooled = ops::max_pool(root, x);
  CHECK(root.shape_of(ops::max_pool_grad(root, x, pooled, pooled)) == partial_shape{2, 9, 9, 3});
  auto avg_grad = ops::avg_pool_grad(root, sizes(root, {2, 9, 9, 3}), ops::avg_pool(root, x));
  CHECK(root.shape_of(avg_grad) == partial_shape{2, 9, 9, 3});
  REQUIRE(root.ok());
}

TEST_CASE("Definite mismatches fail at construction, naming the node and the shapes") {
  {
    auto root = scope::new_root();
    ops::conv2d(root.with_op_name("c"), placeholder(root, {1, 8, 8, 3}),
                placeholder(root, {3, 3, 2, 4}));
    check_construction_error(root, "node 'c' (Conv2D): input and filter must have the same "
                                   "depth: 3 vs 2 (input [1,8,8,3], filter [3,3,2,4])");
  }
  {
    auto root = scope::new_root();
    ops::conv2d(root, placeholder(root, {8, 8, 3}), placeholder(root, {3, 3, 3, 4}));
    check_construction_error(root, "input must be 4-dimensional, got shape [8,8,3]");
  }
  {
    auto root = scope::new_root();
    ops::conv2d(root, placeholder(root, {1, 8, 8, 3}), placeholder(root, {3, 3, 3, 4}),
                {.strides = {1, 1, 1, 2}});
    check_construction_error(root, "does not yet support strides in the batch and depth");
  }
  {
    auto root = scope::new_root();
    ops::conv2d(root, placeholder(root, {1, 8, 8, 3}), placeholder(root, {3, 3, 3, 4}),
                {.data_format = "NWHC"});
    check_construction_error(root, "invalid data_format 'NWHC' (expected NHWC or NCHW)");
  }
  {
    auto root = scope::new_root();
    ops::conv2d_backprop_input(root.with_op_name("bi"), sizes(root, {1, 8, 8, 3}),
                               placeholder(root, {3, 3, 3, 4}), placeholder(root, {1, 8, 8, 5}));
    check_construction_error(root, "node 'bi' (Conv2DBackpropInput): out_backprop has shape "
                                   "[1,8,8,5] but input_sizes and filter give [1,8,8,4]");
  }
  {
    auto root = scope::new_root();
    auto x = placeholder(root, {2, 9, 9, 3});
    ops::max_pool_grad(root, x, placeholder(root, {2, 5, 5, 3}), placeholder(root, {2, 4, 4, 3}));
    check_construction_error(root, "orig_output has shape [2,5,5,3] but orig_input and the window "
                                   "give [2,4,4,3]");
  }
  {
    auto root = scope::new_root();
    ops::avg_pool(root, placeholder(root, {2, 9, 9, 3}), {.ksize = {1, 2, 2}});
    check_construction_error(root, "ksize field must specify 4 dimensions, got [1,2,2]");
  }
}
