#include "graph/client/train/layers.hpp"

#include <algorithm>
#include <cctype>

#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/conv_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/matmul_ops.hpp"
#include "graph/client/ops/nn_ops.hpp"
#include "graph/client/ops/random_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow::layers {
namespace {

// TensorFlow's seed for graphs without one, so an op seed alone fixes the sequence.
inline constexpr int64_t default_graph_seed = 87654321;

bool is_float(dtype t) { return t == dtype::float32 || t == dtype::float64; }

// "same"/"valid" in either case as the ops spell them; empty when neither.
std::string padding_of(const std::string& p) {
  std::string up = p;
  std::transform(up.begin(), up.end(), up.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return up == "SAME" || up == "VALID" ? up : std::string();
}

// Shared by dense and conv2d: the variables, then activation(op(x, kernel) + bias).
template <class Apply>
weighted_layer build_weighted(const scope& s, const output& x,
                              const tensor_shape& kernel_shape, int64_t units,
                              const train::initializer& kernel_init,
                              const train::initializer& bias_init, bool use_bias, bool trainable,
                              const activation_fn& activation, Apply&& apply) {
  const train::variable_attrs vattrs{.trainable = trainable};
  weighted_layer layer;
  layer.kernel = train::create_variable(
      s, "kernel", kernel_shape, x.type,
      kernel_init ? kernel_init : train::glorot_uniform_initializer(), vattrs);
  if (use_bias)
    layer.bias = train::create_variable(s, "bias", tensor_shape{units}, x.type,
                                        bias_init ? bias_init : train::zeros_initializer(), vattrs);
  if (!s.ok()) return {};
  output y = apply(layer.kernel.ref);
  if (use_bias) y = ops::bias_add(s, y, layer.bias.ref);
  if (activation) y = activation(s, y);
  if (!s.ok()) return {};
  layer.out = y;
  return layer;
}

bool check_input(const scope& s, const std::string& what, const output& x, int rank) {
  if (!s.ok()) return false;
  if (!x.valid()) {
    s.update_status(errors::invalid_argument(what, ": the input is an invalid output (from a "
                                             "failed op?)"));
    return false;
  }
  if (!is_float(x.type)) {
    s.update_status(errors::invalid_argument(what, ": the input '", x.name(), "' is ",
                                             dtype_name(x.type), "; float32 or float64 expected"));
    return false;
  }
  const partial_shape shape = s.shape_of(x);
  if (rank >= 0 && shape.rank_known() && shape.rank() != rank) {
    s.update_status(errors::invalid_argument(what, ": the input '", x.name(), "' has shape ",
                                             shape.to_string(), "; rank ", rank, " expected"));
    return false;
  }
  return true;
}

// The input's last dimension, which sizes the kernel; -1 (with the error kept) when unknown.
int64_t known_depth(const scope& s, const std::string& what, const output& x, int rank) {
  const partial_shape shape = s.shape_of(x);
  if (!shape.rank_known() || shape.dim(rank - 1) < 0) {
    s.update_status(errors::invalid_argument(what, ": the input '", x.name(), "' has shape ",
                                             shape.to_string(),
                                             "; its last dimension must be known to size the "
                                             "kernel"));
    return -1;
  }
  return shape.dim(rank - 1);
}

}  // namespace

std::vector<train::variable> weighted_layer::variables() const {
  std::vector<train::variable> out;
  if (kernel.valid()) out.push_back(kernel);
  if (bias.valid()) out.push_back(bias);
  return out;
}

weighted_layer dense(const scope& s, const output& x, int64_t units, const dense_attrs& attrs) {
  const std::string what = "dense layer '" + attrs.name + "'";
  if (!check_input(s, what, x, 2)) return {};
  if (units <= 0) {
    s.update_status(errors::invalid_argument(what, ": units must be positive, got ", units));
    return {};
  }
  const int64_t in = known_depth(s, what, x, 2);
  if (in < 0) return {};
  const scope ls = s.new_sub_scope(attrs.name);
  return build_weighted(ls, x, tensor_shape{in, units}, units, attrs.kernel_initializer,
                        attrs.bias_initializer, attrs.use_bias, attrs.trainable, attrs.activation,
                        [&](const output& kernel) { return ops::mat_mul(ls, x, kernel); });
}

weighted_layer conv2d(const scope& s, const output& x, int64_t filters,
                      std::array<int64_t, 2> kernel_size, const conv2d_layer_attrs& attrs) {
  const std::string what = "conv2d layer '" + attrs.name + "'";
  if (!check_input(s, what, x, 4)) return {};
  const std::string padding = padding_of(attrs.padding);
  if (filters <= 0 || kernel_size[0] <= 0 || kernel_size[1] <= 0 || attrs.strides[0] <= 0 ||
      attrs.strides[1] <= 0 || padding.empty()) {
    s.update_status(errors::invalid_argument(
        what, ": filters (", filters, "), kernel_size (", kernel_size[0], "x", kernel_size[1],
        ") and strides (", attrs.strides[0], "x", attrs.strides[1],
        ") must be positive and padding (\"", attrs.padding, "\") \"same\" or \"valid\""));
    return {};
  }
  const int64_t in = known_depth(s, what, x, 4);
  if (in < 0) return {};
  const scope ls = s.new_sub_scope(attrs.name);
  const ops::conv2d_attrs conv{
      .strides = {1, int(attrs.strides[0]), int(attrs.strides[1]), 1}, .padding = padding};
  return build_weighted(ls, x, tensor_shape{kernel_size[0], kernel_size[1], in, filters},
                        filters, attrs.kernel_initializer, attrs.bias_initializer, attrs.use_bias,
                        attrs.trainable, attrs.activation,
                        [&](const output& kernel) { return ops::conv2d(ls, x, kernel, conv); });
}

output max_pooling2d(const scope& s, const output& x, std::array<int64_t, 2> pool_size,
                     std::array<int64_t, 2> strides, const pooling2d_attrs& attrs) {
  const std::string what = "max_pooling2d layer '" + attrs.name + "'";
  if (!s.ok()) return {};
  const std::string padding = padding_of(attrs.padding);
  if (pool_size[0] <= 0 || pool_size[1] <= 0 || strides[0] <= 0 || strides[1] <= 0 ||
      padding.empty()) {
    s.update_status(errors::invalid_argument(
        what, ": pool_size (", pool_size[0], "x", pool_size[1], ") and strides (", strides[0],
        "x", strides[1], ") must be positive and padding (\"", attrs.padding,
        "\") \"same\" or \"valid\""));
    return {};
  }
  return ops::max_pool(s.with_op_name(attrs.name), x,
                       {.ksize = {1, int(pool_size[0]), int(pool_size[1]), 1},
                        .strides = {1, int(strides[0]), int(strides[1]), 1},
                        .padding = padding});
}

output flatten(const scope& s, const output& x, const flatten_attrs& attrs) {
  if (!s.ok()) return {};
  const partial_shape shape = s.shape_of(x);
  if (!shape.rank_known() || shape.rank() < 1) {
    s.update_status(errors::invalid_argument(
        "flatten layer '", attrs.name, "': the input '", x.name(), "' has shape ",
        shape.to_string(), "; a known rank of at least 1 (the batch) is needed"));
    return {};
  }
  const scope ls = s.new_sub_scope(attrs.name);
  int64_t features = 1;
  bool known = true;
  for (int i = 1; i < shape.rank(); ++i) {
    if (shape.dim(i) < 0) known = false;
    else features *= shape.dim(i);
  }
  if (known) return ops::reshape(ls, x, {-1, features});
  // Some feature dimension is only known at run time: multiply them then.
  const output dims = ops::shape(ls, x, {.out_type = dtype::int64});
  const output product =
      ops::prod(ls, ops::slice(ls, dims, {1}, {shape.rank() - 1}), {0}, {.keep_dims = true});
  const output target = ops::concat(ls, {ops::constant(ls, std::vector<int64_t>{-1}, {1}), product}, 0);
  return ops::reshape(ls, x, target);
}

output dropout(const scope& s, const output& x, double rate, const output& training,
               const dropout_attrs& attrs) {
  const std::string what = "dropout layer '" + attrs.name + "'";
  if (!check_input(s, what, x, -1)) return {};
  if (!(rate >= 0 && rate < 1)) {
    s.update_status(errors::invalid_argument(what, ": rate must be in [0, 1), got ", rate));
    return {};
  }
  if (!training.valid() || training.type != dtype::boolean) {
    s.update_status(errors::invalid_argument(what, ": training must be a bool scalar, got ",
                                             training.valid() ? dtype_name(training.type)
                                                              : "an invalid output"));
    return {};
  }
  const scope ls = s.new_sub_scope(attrs.name);
  const double keep = 1 - rate;
  const ops::random_attrs seeds = attrs.seed == 0
                                      ? ops::random_attrs{}
                                      : ops::random_attrs{.seed = default_graph_seed,
                                                          .seed2 = attrs.seed};
  const output uniform =
      ops::random_uniform(ls, ops::shape(ls, x, {.out_type = dtype::int64}), x.type, seeds);
  // keep + u >= 1 exactly when u >= rate: probability keep.
  const output mask = ops::floor(ls, ops::add(ls, uniform, train::scalar_constant(ls, keep, x.type)));
  const output dropped =
      ops::mul(ls, ops::mul(ls, x, train::scalar_constant(ls, 1 / keep, x.type)), mask);
  return ops::select(ls, training, dropped, x);
}

output dropout(const scope& s, const output& x, double rate, bool training,
               const dropout_attrs& attrs) {
  if (!training) {
    if (!(rate >= 0 && rate < 1))
      s.update_status(errors::invalid_argument("dropout layer '", attrs.name,
                                               "': rate must be in [0, 1), got ", rate));
    return x;
  }
  return dropout(s, x, rate, ops::constant(s, true), attrs);
}

}  // namespace caflow::layers
