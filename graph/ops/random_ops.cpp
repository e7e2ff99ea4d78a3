// RandomUniform, RandomStandardNormal and TruncatedNormal: registrations and shape function.
#include <array>
#include <span>

#include "graph/ir/op_def.hpp"
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

}  // namespace caflow
