// ResizeBilinear, ResizeNearestNeighbor and their gradients: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

// Input `image` is 4-D; input `size` an int32 vector of 2 whose value, when known, gives the
// output's rows and columns; `depth_from` names the input whose batch and depth the output has.
status resized_shape(shape_context& c, int image, int size, int like) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(image, 4));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(size, 1));
  const partial_shape& sz = c.input(size);
  if (sz.rank_known() && sz.dim(0) >= 0 && sz.dim(0) != 2)
    return c.error("size must have 2 entries (rows, columns), got shape ", sz.to_string());
  std::vector<int64_t> dims(4, -1);
  if (c.input(like).rank_known()) dims = c.input(like).dim_vector();
  dims[1] = dims[2] = -1;
  if (const tensor* v = c.input_value(size)) {
    for (int i = 0; i < 2; ++i) {
      const int32_t d = v->data<int32_t>()[i];
      if (d <= 0) return c.error("size must be positive, got [", v->data<int32_t>()[0], ",",
                                 v->data<int32_t>()[1], "]");
      dims[1 + i] = d;
    }
  }
  c.set_output(0, partial_shape(dims));
  return {};
}

status resize_shape(shape_context& c) { return resized_shape(c, 0, 1, 0); }
status nearest_grad_shape(shape_context& c) { return resized_shape(c, 0, 1, 0); }

status bilinear_grad_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 4));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 4));
  c.set_output(0, c.input(1));
  return {};
}

}  // namespace

#define CAFLOW_RESIZE_ATTRS                                                               \
  attr("align_corners: bool = false").attr("half_pixel_centers: bool = false")

CAFLOW_REGISTER_OP("ResizeBilinear")
    .input("images: T")
    .input("size: int32")
    .output("resized_images: float32")
    .attr("T: {float32, float64, int32, int64, uint8}")
    .CAFLOW_RESIZE_ATTRS.set_shape_fn(resize_shape);
CAFLOW_REGISTER_OP("ResizeNearestNeighbor")
    .input("images: T")
    .input("size: int32")
    .output("resized_images: T")
    .attr("T: {float32, float64, int32, int64, uint8}")
    .CAFLOW_RESIZE_ATTRS.set_shape_fn(resize_shape);
CAFLOW_REGISTER_OP("ResizeBilinearGrad")
    .input("grads: float32")
    .input("original_image: T")
    .output("output: T")
    .attr("T: {float32, float64}")
    .CAFLOW_RESIZE_ATTRS.set_shape_fn(bilinear_grad_shape);
CAFLOW_REGISTER_OP("ResizeNearestNeighborGrad")
    .input("grads: T")
    .input("size: int32")
    .output("output: T")
    .attr("T: {float32, float64, int32}")
    .CAFLOW_RESIZE_ATTRS.set_shape_fn(nearest_grad_shape);

#undef CAFLOW_RESIZE_ATTRS

}  // namespace caflow
