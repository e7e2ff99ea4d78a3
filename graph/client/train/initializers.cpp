#include "graph/client/train/initializers.hpp"

#include <algorithm>
#include <cmath>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/random_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow::train {

// TensorFlow's seed for graphs without one, so an op seed alone fixes the sequence.
inline constexpr int64_t default_graph_seed = 87654321;

fans compute_fans(const tensor_shape& shape) {
  const int r = shape.rank();
  if (r == 0) return {1, 1};
  if (r == 1) return {double(shape.dim(0)), double(shape.dim(0))};
  double receptive_field = 1;
  for (int i = 0; i < r - 2; ++i) receptive_field *= double(shape.dim(i));
  return {double(shape.dim(r - 2)) * receptive_field, double(shape.dim(r - 1)) * receptive_field};
}

double glorot_uniform_limit(const tensor_shape& shape) {
  const fans f = compute_fans(shape);
  return std::sqrt(3.0 / std::max(1.0, (f.fan_in + f.fan_out) / 2.0));
}

output scalar_constant(const scope& s, double value, dtype type) {
  tensor t;
  visit_dtype(type, [&]<class T>() { t = tensor::scalar<T>(static_cast<T>(value)); });
  if (!t.initialized()) {
    s.update_status(errors::invalid_argument("scalar_constant: invalid dtype"));
    return {};
  }
  return ops::constant(s, t);
}

output glorot_uniform(const scope& s, const tensor_shape& shape, dtype type, int64_t seed) {
  if (type != dtype::float32 && type != dtype::float64) {
    s.update_status(errors::invalid_argument("glorot_uniform: dtype must be float32 or float64, got ",
                                             dtype_name(type)));
    return {};
  }
  const double limit = glorot_uniform_limit(shape);
  const ops::random_attrs seeds =
      seed == 0 ? ops::random_attrs{} : ops::random_attrs{.seed = default_graph_seed, .seed2 = seed};
  const output unit = ops::random_uniform(s, shape.dim_vector(), type, seeds);
  // [0, 1) -> [-limit, limit)
  return ops::add(s.with_op_name("glorot_uniform"),
                  ops::mul(s, unit, scalar_constant(s.with_op_name("range"), 2 * limit, type)),
                  scalar_constant(s.with_op_name("min"), -limit, type));
}

output constant_fill(const scope& s, const tensor_shape& shape, dtype type, double value) {
  const output dims =
      ops::constant(s.with_op_name("shape"), tensor::from_vector<int64_t>(shape.dim_vector()));
  return ops::fill(s, dims, scalar_constant(s.with_op_name("value"), value, type));
}

output zeros(const scope& s, const tensor_shape& shape, dtype type) {
  return constant_fill(s.with_op_name("zeros"), shape, type, 0.0);
}

output ones(const scope& s, const tensor_shape& shape, dtype type) {
  return constant_fill(s.with_op_name("ones"), shape, type, 1.0);
}

initializer glorot_uniform_initializer(int64_t seed) {
  return [seed](const scope& s, const tensor_shape& shape, dtype type) {
    return glorot_uniform(s, shape, type, seed);
  };
}

initializer constant_initializer(double value) {
  return [value](const scope& s, const tensor_shape& shape, dtype type) {
    return constant_fill(s.with_op_name("Const"), shape, type, value);
  };
}

initializer zeros_initializer() {
  return [](const scope& s, const tensor_shape& shape, dtype type) { return zeros(s, shape, type); };
}

initializer ones_initializer() {
  return [](const scope& s, const tensor_shape& shape, dtype type) { return ones(s, shape, type); };
}

}  // namespace caflow::train
