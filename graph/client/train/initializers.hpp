#pragma once
// Initial values for variables, as Keras and tf.*_initializer build them:
//
//   auto k = train::create_variable(s, "kernel", tensor_shape{784, 100}, dtype::float32,
//                                   train::glorot_uniform_initializer(/*seed=*/1));
//
// Each function adds the nodes computing the value to `s`; each *_initializer returns a
// train::initializer for create_variable and the layers.
#include <cstdint>

#include "graph/client/train/variables.hpp"

namespace caflow::train {

// Fan-in and fan-out of a weight tensor, as Keras' compute_fans: a dense kernel [in, out] has
// (in, out); a convolution kernel [kh, kw, in, out] has (kh*kw*in, kh*kw*out); a vector [n]
// has (n, n); a scalar (1, 1).
struct fans {
  double fan_in = 1;
  double fan_out = 1;
};
fans compute_fans(const tensor_shape& shape);

// The Glorot (Xavier) uniform limit: sqrt(6 / (fan_in + fan_out)), as Keras computes it
// (sqrt(3 / max(1, (fan_in + fan_out) / 2))).
double glorot_uniform_limit(const tensor_shape& shape);

// Uniform on [-limit, limit) with glorot_uniform_limit(shape); `type` is float32 or float64.
// Seed 0 draws a different sequence every time the graph is built; any other seed gives the
// same values on every rebuild (TensorFlow's default graph seed 87654321 with `seed` as the
// op seed).
output glorot_uniform(const scope& s, const tensor_shape& shape, dtype type, int64_t seed = 0);
// `value` everywhere (a Fill, so a large variable costs no large constant in the graph).
output constant_fill(const scope& s, const tensor_shape& shape, dtype type, double value);
output zeros(const scope& s, const tensor_shape& shape, dtype type);
output ones(const scope& s, const tensor_shape& shape, dtype type);

initializer glorot_uniform_initializer(int64_t seed = 0);
initializer constant_initializer(double value);
initializer zeros_initializer();
initializer ones_initializer();

// A scalar Const of `type` holding `value` (converted as static_cast would).
output scalar_constant(const scope& s, double value, dtype type);

}  // namespace caflow::train
