#pragma once
// Layers as TensorFlow 1.x's tf.layers builds them: each adds its ops (and its variables) to
// the graph under a name scope of its own ("dense", "dense_1", ...) and returns the variables,
// so the caller can initialize and train them.
//
//   auto x = ops::placeholder(root, dtype::float32, {.shape = partial_shape{-1, 28, 28, 1}});
//   auto c = layers::conv2d(root, x, 32, {5, 5}, {.padding = "same", .activation = ops::relu});
//   auto p = layers::max_pooling2d(root, c, {2, 2}, {2, 2});         // [?, 14, 14, 32]
//   auto h = layers::dense(root, layers::flatten(root, p), 128, {.activation = ops::relu});
//   auto d = layers::dropout(root, h, 0.5, training);                 // training: a bool tensor
//   auto logits = layers::dense(root, d, 10);
//   train::variable_set vars;
//   vars.add(c.variables());
//   vars.add(h.variables());
//   vars.add(logits.variables());
//
// Kernels start as Glorot-uniform values and biases as zeros unless an initializer is given.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph/client/train/initializers.hpp"
#include "graph/client/train/variables.hpp"

namespace caflow::layers {

// Applied to a layer's output, e.g. ops::relu, ops::sigmoid, ops::tanh; empty means linear.
using activation_fn = std::function<output(const scope& s, const output& x)>;

// A layer with weights: its output (usable wherever an output is expected) and variables.
struct weighted_layer {
  output out;
  train::variable kernel;
  train::variable bias;  // invalid when the layer has no bias

  operator const output&() const { return out; }  // NOLINT: a layer reads as its output
  std::vector<train::variable> variables() const;
};

struct dense_attrs {
  activation_fn activation = {};
  bool use_bias = true;
  std::string name = "dense";
  train::initializer kernel_initializer = {};  // empty: glorot_uniform_initializer()
  train::initializer bias_initializer = {};    // empty: zeros_initializer()
  bool trainable = true;
};
// activation(x . kernel + bias) for x [batch, in] (float32 or float64, `in` known), with
// kernel [in, units] and bias [units]. Errors are kept in the scope.
weighted_layer dense(const scope& s, const output& x, int64_t units, const dense_attrs& attrs = {});

struct conv2d_layer_attrs {
  std::array<int64_t, 2> strides{1, 1};
  std::string padding = "valid";  // "valid" or "same", either case
  activation_fn activation = {};
  bool use_bias = true;
  std::string name = "conv2d";
  train::initializer kernel_initializer = {};  // empty: glorot_uniform_initializer()
  train::initializer bias_initializer = {};    // empty: zeros_initializer()
  bool trainable = true;
};
// activation(conv2d(x, kernel) + bias) for NHWC x [batch, rows, cols, in] (`in` known), with
// kernel [kernel_rows, kernel_cols, in, filters] and bias [filters].
weighted_layer conv2d(const scope& s, const output& x, int64_t filters,
                      std::array<int64_t, 2> kernel_size, const conv2d_layer_attrs& attrs = {});

struct pooling2d_attrs {
  std::string padding = "valid";  // "valid" or "same", either case
  std::string name = "max_pooling2d";
};
// The maximum over each pool_size window of NHWC x, moved by `strides`.
output max_pooling2d(const scope& s, const output& x, std::array<int64_t, 2> pool_size,
                     std::array<int64_t, 2> strides, const pooling2d_attrs& attrs = {});

struct flatten_attrs {
  std::string name = "flatten";
};
// x [batch, d1, ..., dk] as [batch, d1 * ... * dk] (sharing x's bytes). x's rank must be known;
// unknown d's are multiplied at run time.
output flatten(const scope& s, const output& x, const flatten_attrs& attrs = {});

struct dropout_attrs {
  int64_t seed = 0;  // 0: a different mask sequence on every graph build
  std::string name = "dropout";
};
// While `training` (a bool scalar) is true: each element of x is kept with probability
// 1 - rate and scaled by 1 / (1 - rate), else zeroed, so the expectation is x. While false: x
// unchanged. REQUIRES 0 <= rate < 1.
output dropout(const scope& s, const output& x, double rate, const output& training,
               const dropout_attrs& attrs = {});
// The same with training fixed when the graph is built: false returns x itself.
output dropout(const scope& s, const output& x, double rate, bool training,
               const dropout_attrs& attrs = {});

}  // namespace caflow::layers
