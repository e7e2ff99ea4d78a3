// The reductions Sum, Mean, Max, Min, Prod, All and Any, and ArgMax and ArgMin: registrations
// and shape functions.
#include <string>

#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/reduction_axes.hpp"

namespace caflow {
namespace {

status reduction_shape(shape_context& c) {
  bool keep_dims = false;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("keep_dims", &keep_dims));
  const partial_shape& in = c.input(0);
  if (c.input(1).rank_known() && c.input(1).rank() > 1)
    return c.error("reduction_indices must be a scalar or a vector, got shape ",
                   c.input(1).to_string());
  const tensor* axes = c.input_value(1);
  if (axes == nullptr) {
    // Which dims go away is unknown; with keep_dims none does.
    c.set_output(0, keep_dims && in.rank_known() ? partial_shape::unknown_of_rank(in.rank())
                                                 : partial_shape::unknown());
    return {};
  }
  if (axes->num_elements() == 0) {
    c.set_output(0, in);
    return {};
  }
  if (!in.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  auto reduced = reduction_axes(*axes, in.rank());
  if (!reduced.ok()) return c.error(reduced.get_status().message());
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    if (!(*reduced)[i])
      dims.push_back(in.dim(i));
    else if (keep_dims)
      dims.push_back(1);
  }
  c.set_output(0, partial_shape(dims));
  return {};
}

status arg_reduction_shape(shape_context& c) {
  const partial_shape& in = c.input(0);
  if (c.input(1).rank_known() && c.input(1).rank() != 0)
    return c.error("dimension must be a scalar, got shape ", c.input(1).to_string());
  if (in.rank_known() && in.rank() == 0)
    return c.error("input must have at least one dimension, got a scalar");
  const tensor* dim = c.input_value(1);
  if (!in.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  if (dim == nullptr) {
    c.set_output(0, partial_shape::unknown_of_rank(in.rank() - 1));
    return {};
  }
  const int64_t d = index_values(*dim)[0];
  const int rank = in.rank();
  if (d < -rank || d >= rank)
    return c.error("dimension ", d, " is out of range for input of rank ", rank,
                   ": it must be in [", -rank, ", ", rank, ")");
  const int axis = static_cast<int>(d < 0 ? d + rank : d);
  if (in.dim(axis) == 0)
    return c.error("cannot reduce over dimension ", axis, " of size 0 in shape ", in.to_string());
  std::vector<int64_t> dims = in.dim_vector();
  dims.erase(dims.begin() + axis);
  c.set_output(0, partial_shape(dims));
  return {};
}

}  // namespace


#define CAFLOW_REGISTER_REDUCTION_OP(name)         \
  CAFLOW_REGISTER_OP(name)                         \
      .input("input: T")                           \
      .input("reduction_indices: Tidx")            \
      .output("output: T")                         \
      .attr("keep_dims: bool = false")             \
      .attr("T: {float32, float64, int32, int64}") \
      .attr("Tidx: {int32, int64} = int32")        \
      .set_shape_fn(reduction_shape)
CAFLOW_REGISTER_REDUCTION_OP("Sum");
CAFLOW_REGISTER_REDUCTION_OP("Mean");
CAFLOW_REGISTER_REDUCTION_OP("Max");
CAFLOW_REGISTER_REDUCTION_OP("Min");
CAFLOW_REGISTER_REDUCTION_OP("Prod");
#undef CAFLOW_REGISTER_REDUCTION_OP
// Logical AND / OR over bools; kernels in kernels/cpu/reduction_logical_kernel.cpp.
#define CAFLOW_REGISTER_LOGICAL_REDUCTION_OP(name) \
  CAFLOW_REGISTER_OP(name)                         \
      .input("input: bool")                        \
      .input("reduction_indices: Tidx")            \
      .output("output: bool")                      \
      .attr("keep_dims: bool = false")             \
      .attr("Tidx: {int32, int64} = int32")        \
      .set_shape_fn(reduction_shape)
CAFLOW_REGISTER_LOGICAL_REDUCTION_OP("All");
CAFLOW_REGISTER_LOGICAL_REDUCTION_OP("Any");
#undef CAFLOW_REGISTER_LOGICAL_REDUCTION_OP

CAFLOW_REGISTER_OP("ArgMax")
    .input("input: T")
    .input("dimension: Tidx")
    .output("output: output_type")
    .attr("T: {float32, float64, int32, int64}")
    .attr("Tidx: {int32, int64} = int32")
    .attr("output_type: {int32, int64} = int64")
    .set_shape_fn(arg_reduction_shape);
CAFLOW_REGISTER_OP("ArgMin")
    .input("input: T")
    .input("dimension: Tidx")
    .output("output: output_type")
    .attr("T: {float32, float64, int32, int64}")
    .attr("Tidx: {int32, int64} = int32")
    .attr("output_type: {int32, int64} = int64")
    .set_shape_fn(arg_reduction_shape);

}  // namespace caflow
