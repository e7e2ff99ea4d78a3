// MaxPoolWithArgmax, MaxPoolGradWithArgmax and MaxPoolGradGradWithArgmax: registrations and
// shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/argmax_pool_rules.hpp"

namespace caflow {
namespace {

status_or<partial_shape> pooled(const shape_context& c) {
  auto p = parse_argmax_pool_params(c.node());
  if (!p.ok()) return c.error(p.get_status().message());
  auto out = argmax_pool_output_shape(*p, c.input(0));
  if (!out.ok()) return c.error(out.get_status().message());
  return out;
}

status require(const shape_context& c, int i, const partial_shape& expected, const char* what) {
  if (!c.input(i).compatible_with(expected))
    return c.error(what, " has shape ", c.input(i).to_string(), " but the input and window give ",
                   expected.to_string());
  return {};
}

status with_argmax_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, pooled(c));
  c.set_output(0, out);
  c.set_output(1, out);
  return {};
}

// grad_grad false: MaxPoolGradWithArgmax (grad and argmax pooled-shaped, output input-shaped);
// true: MaxPoolGradGradWithArgmax (grad input-shaped, output pooled-shaped).
template <bool grad_grad>
status grad_with_argmax_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const partial_shape out, pooled(c));
  const partial_shape in =
      c.input(0).rank_known() ? c.input(0) : partial_shape::unknown_of_rank(4);
  CAFLOW_RETURN_IF_ERROR(require(c, 1, grad_grad ? in : out, "grad"));
  CAFLOW_RETURN_IF_ERROR(require(c, 2, out, "argmax"));
  c.set_output(0, grad_grad ? out : in);
  return {};
}

}  // namespace

#define CAFLOW_ARGMAX_POOL_ATTRS                                                          \
  attr("ksize: list(int)")                                                                \
      .attr("strides: list(int)")                                                         \
      .attr("padding: string")                                                            \
      .attr("include_batch_in_index: bool = false")                                       \
      .attr("Targmax: {int32, int64} = int64")                                            \
      .attr("T: {float32, float64}")

CAFLOW_REGISTER_OP("MaxPoolWithArgmax")
    .input("input: T")
    .output("output: T")
    .output("argmax: Targmax")
    .CAFLOW_ARGMAX_POOL_ATTRS.set_shape_fn(with_argmax_shape);
CAFLOW_REGISTER_OP("MaxPoolGradWithArgmax")
    .input("input: T")
    .input("grad: T")
    .input("argmax: Targmax")
    .output("output: T")
    .CAFLOW_ARGMAX_POOL_ATTRS.set_shape_fn(grad_with_argmax_shape<false>);
CAFLOW_REGISTER_OP("MaxPoolGradGradWithArgmax")
    .input("input: T")
    .input("grad: T")
    .input("argmax: Targmax")
    .output("output: T")
    .CAFLOW_ARGMAX_POOL_ATTRS.set_shape_fn(grad_with_argmax_shape<true>);

#undef CAFLOW_ARGMAX_POOL_ATTRS

}  // namespace caflow
