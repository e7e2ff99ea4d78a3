// Gradients of StridedSlice and StridedSliceGrad. A slice's gradient is StridedSliceGrad: dy
// written back where the slice read, zeros elsewhere, for any strides (negative ones too),
// masks, and bounds known only at run time. StridedSliceGrad is linear in dy, and its
// gradient with respect to dy is the slice of the incoming gradient.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/array_ops.hpp"

namespace caflow {
namespace {

status masks_of(const grad_op_info& op, ops::strided_slice_attrs* m) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("begin_mask", &m->begin_mask));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("end_mask", &m->end_mask));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("ellipsis_mask", &m->ellipsis_mask));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("new_axis_mask", &m->new_axis_mask));
  return op.get_attr("shrink_axis_mask", &m->shrink_axis_mask);
}

status strided_slice_grad(const scope& s, const grad_op_info& op, const std::vector<output>& dy,
                          std::vector<output>* dx) {
  ops::strided_slice_attrs masks;
  CAFLOW_RETURN_IF_ERROR(masks_of(op, &masks));
  const output &x = op.inputs[0], &begin = op.inputs[1], &end = op.inputs[2],
               &strides = op.inputs[3];
  // The shape vector must have the bounds' index type (one Index attr covers all four).
  const output shape = grad::shape_of(s, x, begin.type);
  *dx = {ops::strided_slice_grad(s, shape, begin, end, strides, dy[0], masks), output{}, output{},
         output{}};
  return {};
}

status strided_slice_grad_grad(const scope& s, const grad_op_info& op,
                               const std::vector<output>& dy, std::vector<output>* dx) {
  ops::strided_slice_attrs masks;
  CAFLOW_RETURN_IF_ERROR(masks_of(op, &masks));
  *dx = {output{}, output{}, output{}, output{},
         ops::strided_slice(s, dy[0], op.inputs[1], op.inputs[2], op.inputs[3], masks)};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("StridedSlice", strided_slice_grad);
CAFLOW_REGISTER_GRADIENT("StridedSliceGrad", strided_slice_grad_grad);

}  // namespace caflow
