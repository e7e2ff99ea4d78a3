#include "graph/client/ops/random_ops.hpp"

#include <array>
#include <span>

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

// The output has the dims given by the shape input's value when it is a constant; otherwise
// only the rank is known, from the length of the shape vector.
status random_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 1));
  if (const tensor* value = c.input_value(0); value != nullptr && value->rank() == 1) {
    const int64_t rank = value->num_elements();
    if (rank > max_rank)
      return c.error("shape has ", rank, " dims, more than the maximum rank ", max_rank);
    std::array<int64_t, max_rank> dims{};
    for (int64_t i = 0; i < rank; ++i) {
      dims[i] = value->type() == dtype::int32 ? int64_t{value->data<int32_t>()[i]}
                                              : value->data<int64_t>()[i];
      if (dims[i] < 0)
        return c.error("shape dim ", i, " is ", dims[i], "; dims must be non-negative");
    }
    auto shape = tensor_shape::make(std::span<const int64_t>(dims.data(), rank));
    if (!shape.ok()) return c.error(shape.get_status().message());
    c.set_output(0, *shape);
    return {};
  }
  const partial_shape& in = c.input(0);
  if (!in.rank_known() || in.dim(0) < 0) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  if (in.dim(0) > max_rank)
    return c.error("shape has ", in.dim(0), " dims, more than the maximum rank ", max_rank);
  c.set_output(0, partial_shape::unknown_of_rank(static_cast<int>(in.dim(0))));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("RandomUniform").input("shape: T").output("output: dtype")
    .attr("seed: int = 0").attr("seed2: int = 0").attr("dtype: {float32, float64}")
    .attr("T: {int32, int64}").stateful().set_shape_fn(random_shape);
CAFLOW_REGISTER_OP("RandomStandardNormal").input("shape: T").output("output: dtype")
    .attr("seed: int = 0").attr("seed2: int = 0").attr("dtype: {float32, float64}")
    .attr("T: {int32, int64}").stateful().set_shape_fn(random_shape);
CAFLOW_REGISTER_OP("TruncatedNormal").input("shape: T").output("output: dtype")
    .attr("seed: int = 0").attr("seed2: int = 0").attr("dtype: {float32, float64}")
    .attr("T: {int32, int64}").stateful().set_shape_fn(random_shape);

namespace ops {
namespace {

output random_node(const scope& s, const char* op, const output& shape, dtype type,
                   const random_attrs& attrs) {
  return node_builder(s, op).input(shape).attr("dtype", type).attr("seed", attrs.seed)
      .attr("seed2", attrs.seed2).finalize().out();
}

// A Const named like any other in the current name scope, so the name requested for the
// random node (with_op_name) goes to the random node.
output shape_constant(const scope& s, const std::vector<int64_t>& shape) {
  return constant(s.new_sub_scope(""), tensor::from_vector<int64_t>(shape));
}

}  // namespace

output random_uniform(const scope& s, const output& shape, dtype type, const random_attrs& attrs) {
  return random_node(s, "RandomUniform", shape, type, attrs);
}
output random_uniform(const scope& s, const std::vector<int64_t>& shape, dtype type,
                      const random_attrs& attrs) {
  return random_uniform(s, shape_constant(s, shape), type, attrs);
}

output random_standard_normal(const scope& s, const output& shape, dtype type,
                              const random_attrs& attrs) {
  return random_node(s, "RandomStandardNormal", shape, type, attrs);
}
output random_standard_normal(const scope& s, const std::vector<int64_t>& shape, dtype type,
                              const random_attrs& attrs) {
  return random_standard_normal(s, shape_constant(s, shape), type, attrs);
}

output truncated_normal(const scope& s, const output& shape, dtype type,
                        const random_attrs& attrs) {
  return random_node(s, "TruncatedNormal", shape, type, attrs);
}
output truncated_normal(const scope& s, const std::vector<int64_t>& shape, dtype type,
                        const random_attrs& attrs) {
  return truncated_normal(s, shape_constant(s, shape), type, attrs);
}

}  // namespace ops
}  // namespace caflow
