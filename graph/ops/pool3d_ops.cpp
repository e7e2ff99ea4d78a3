// MaxPool3D, AvgPool3D and their gradients: registrations and shape functions. The window
// arithmetic is graph/util/pool3d_geometry.hpp, shared with the kernels.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/pool3d_geometry.hpp"

namespace caflow {
namespace {

status_or<partial_shape> output_of(const shape_context& c, const partial_shape& input) {
  auto p = parse_pool3d_params(c.node());
  if (!p.ok()) return c.error(p.get_status().message());
  auto out = pool3d_output_shape(*p, input);
  if (!out.ok()) return c.error(out.get_status().message());
  return out;
}

status require_shape(const shape_context& c, int i, const partial_shape& expected,
                     const char* what) {
  if (!c.input(i).compatible_with(expected))
    return c.error(what, " has shape ", c.input(i).to_string(), " but the input and window give ",
                   expected.to_string());
  return {};
}

status pool3d_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, output_of(c, c.input(0)));
  c.set_output(0, out);
  return {};
}

// MaxPool3DGrad: output shaped like orig_input; MaxPool3DGradGrad: like orig_output.
template <bool grad_grad>
status max_pool3d_grad_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, output_of(c, c.input(0)));
  CAFLOW_RETURN_IF_ERROR(require_shape(c, 1, out, "orig_output"));
  const partial_shape in = c.input(0).rank_known() ? c.input(0) : partial_shape::unknown_of_rank(5);
  CAFLOW_RETURN_IF_ERROR(require_shape(c, 2, grad_grad ? in : out, "grad"));
  c.set_output(0, grad_grad ? out : in);
  return {};
}

status avg_pool3d_grad_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 1));
  partial_shape in = partial_shape::unknown_of_rank(5);
  if (const tensor* v = c.input_value(0)) {
    if (v->num_elements() != 5)
      return c.error("orig_input_shape must hold 5 sizes, got shape ", v->shape().to_string());
    std::vector<int64_t> dims;
    for (int i = 0; i < 5; ++i) dims.push_back(v->data<int32_t>()[i]);
    auto shape = tensor_shape::make(dims);
    if (!shape.ok()) return c.error("orig_input_shape: ", shape.get_status().message());
    in = *shape;
  }
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, output_of(c, in));
  CAFLOW_RETURN_IF_ERROR(require_shape(c, 1, out, "grad"));
  c.set_output(0, in);
  return {};
}

}  // namespace

#define CAFLOW_POOL3D_ATTRS                                                               \
  attr("ksize: list(int)")                                                                \
      .attr("strides: list(int)")                                                         \
      .attr("padding: string")                                                            \
      .attr("data_format: string = 'NDHWC'")

CAFLOW_REGISTER_OP("MaxPool3D")
    .input("input: T")
    .output("output: T")
    .attr("T: {float32, float64}")
    .CAFLOW_POOL3D_ATTRS.set_shape_fn(pool3d_shape);
CAFLOW_REGISTER_OP("AvgPool3D")
    .input("input: T")
    .output("output: T")
    .attr("T: {float32, float64}")
    .CAFLOW_POOL3D_ATTRS.set_shape_fn(pool3d_shape);
CAFLOW_REGISTER_OP("MaxPool3DGrad")
    .input("orig_input: TInput")
    .input("orig_output: TInput")
    .input("grad: T")
    .output("output: T")
    .attr("T: {float32, float64} = float32")
    .attr("TInput: {float32, float64} = float32")
    .CAFLOW_POOL3D_ATTRS.set_shape_fn(max_pool3d_grad_shape<false>);
CAFLOW_REGISTER_OP("MaxPool3DGradGrad")
    .input("orig_input: T")
    .input("orig_output: T")
    .input("grad: T")
    .output("output: T")
    .attr("T: {float32, float64}")
    .CAFLOW_POOL3D_ATTRS.set_shape_fn(max_pool3d_grad_shape<true>);
CAFLOW_REGISTER_OP("AvgPool3DGrad")
    .input("orig_input_shape: int32")
    .input("grad: T")
    .output("output: T")
    .attr("T: {float32, float64}")
    .CAFLOW_POOL3D_ATTRS.set_shape_fn(avg_pool3d_grad_shape);

#undef CAFLOW_POOL3D_ATTRS

}  // namespace caflow
