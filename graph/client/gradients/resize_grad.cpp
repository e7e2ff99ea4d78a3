// Gradients of ResizeBilinear and ResizeNearestNeighbor (graph/client/ops/resize_ops.hpp), as
// TensorFlow's image_grad.py defines them; the size input gets none.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/resize_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status attrs_of(const grad_op_info& op, ops::resize_attrs* a) {
  CAFLOW_RETURN_IF_ERROR(op.get_attr("align_corners", &a->align_corners));
  return op.get_attr("half_pixel_centers", &a->half_pixel_centers);
}

// ResizeBilinearGrad gives float32 or float64 images only; other dtypes carry no gradient.
status resize_bilinear_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                            grad_list* dx) {
  ops::resize_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  *dx = {ops::resize_bilinear_grad(s, dy[0], op.inputs[0], a), output{}};
  return {};
}

// The image's rows and columns: Shape(image)[1:3].
status resize_nearest_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                           grad_list* dx) {
  ops::resize_attrs a;
  CAFLOW_RETURN_IF_ERROR(attrs_of(op, &a));
  const output size = ops::slice(s, ops::shape(s, op.inputs[0]), {1}, {2});
  *dx = {ops::resize_nearest_neighbor_grad(s, dy[0], size, a), output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("ResizeBilinear", resize_bilinear_grad);
CAFLOW_REGISTER_GRADIENT("ResizeNearestNeighbor", resize_nearest_grad);

}  // namespace caflow
