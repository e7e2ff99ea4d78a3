// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2: registrations and shape functions.
// The window arithmetic is graph/util/conv3d_geometry.hpp.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/conv3d_geometry.hpp"

namespace caflow {
namespace {

status_or<partial_shape> output_of(const shape_context& c, const partial_shape& input,
                                   const partial_shape& filter) {
  auto p = parse_conv3d_params(c.node());
  if (!p.ok()) return c.error(p.get_status().message());
  auto out = conv3d_output_shape(*p, input, filter);
  if (!out.ok()) return c.error(out.get_status().message());
  return out;
}

// A 5-D shape given as a vector input: its value when constant, else rank 5.
status_or<partial_shape> volume_sizes_input(const shape_context& c, int i, const char* what) {
  const partial_shape& s = c.input(i);
  if (s.rank_known() && (s.rank() != 1 || (s.dim(0) >= 0 && s.dim(0) != 5)))
    return c.error(what, " must be a vector of 5 sizes, got shape ", s.to_string());
  if (const tensor* v = c.input_value(i)) {
    auto shape = tensor_shape::make(index_values(*v));
    if (!shape.ok() || shape->rank() != 5)
      return c.error(what, " must hold 5 non-negative sizes, got ",
                     format_dims(index_values(*v)));
    return partial_shape(*shape);
  }
  return partial_shape::unknown_of_rank(5);
}

status check_out_backprop(const shape_context& c, const partial_shape& expected) {
  if (!c.input(2).compatible_with(expected))
    return c.error("out_backprop has shape ", c.input(2).to_string(),
                   " but the input and filter give ", expected.to_string());
  return {};
}

status conv3d_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, output_of(c, c.input(0), c.input(1)));
  c.set_output(0, out);
  return {};
}

status backprop_input_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape input, volume_sizes_input(c, 0, "input_sizes"));
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape expected, output_of(c, input, c.input(1)));
  CAFLOW_RETURN_IF_ERROR(check_out_backprop(c, expected));
  c.set_output(0, input);
  return {};
}

status backprop_filter_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape filter, volume_sizes_input(c, 1, "filter_sizes"));
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape expected, output_of(c, c.input(0), filter));
  CAFLOW_RETURN_IF_ERROR(check_out_backprop(c, expected));
  c.set_output(0, filter);
  return {};
}

}  // namespace

#define CAFLOW_CONV3D_ATTRS                                                               \
  attr("T: {float32, float64}")                                                           \
      .attr("strides: list(int)")                                                         \
      .attr("padding: string")                                                            \
      .attr("data_format: string = 'NDHWC'")                                              \
      .attr("dilations: list(int) = [1, 1, 1, 1, 1]")

CAFLOW_REGISTER_OP("Conv3D")
    .input("input: T")
    .input("filter: T")
    .output("output: T")
    .CAFLOW_CONV3D_ATTRS.set_shape_fn(conv3d_shape);
CAFLOW_REGISTER_OP("Conv3DBackpropInputV2")
    .input("input_sizes: Tshape")
    .input("filter: T")
    .input("out_backprop: T")
    .output("output: T")
    .attr("Tshape: {int32, int64} = int32")
    .CAFLOW_CONV3D_ATTRS.set_shape_fn(backprop_input_shape);
CAFLOW_REGISTER_OP("Conv3DBackpropFilterV2")
    .input("input: T")
    .input("filter_sizes: int32")
    .input("out_backprop: T")
    .output("output: T")
    .CAFLOW_CONV3D_ATTRS.set_shape_fn(backprop_filter_shape);

#undef CAFLOW_CONV3D_ATTRS

}  // namespace caflow
