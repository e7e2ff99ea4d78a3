// ResizeBilinear, ResizeNearestNeighbor and their gradients: client functions (registered in
// graph/ops/resize_ops.cpp).
#include "graph/client/ops/resize_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"

namespace caflow {
namespace ops {
namespace {

output build(const scope& s, const char* op, const output& a, const output& b,
             const resize_attrs& attrs) {
  return node_builder(s, op).input(a).input(b).attr("align_corners", attrs.align_corners)
      .attr("half_pixel_centers", attrs.half_pixel_centers).finalize().out();
}

output size_constant(const scope& s, std::initializer_list<int> size) {
  return constant(s.with_op_name(""),
                  tensor::from_vector<int32_t>(std::vector<int32_t>(size.begin(), size.end())));
}

}  // namespace

output resize_bilinear(const scope& s, const output& images, const output& size,
                       const resize_attrs& attrs) {
  return build(s, "ResizeBilinear", images, size, attrs);
}
output resize_bilinear(const scope& s, const output& images, std::initializer_list<int> size,
                       const resize_attrs& attrs) {
  return resize_bilinear(s, images, size_constant(s, size), attrs);
}
output resize_nearest_neighbor(const scope& s, const output& images, const output& size,
                               const resize_attrs& attrs) {
  return build(s, "ResizeNearestNeighbor", images, size, attrs);
}
output resize_nearest_neighbor(const scope& s, const output& images,
                               std::initializer_list<int> size, const resize_attrs& attrs) {
  return resize_nearest_neighbor(s, images, size_constant(s, size), attrs);
}
output resize_bilinear_grad(const scope& s, const output& grads, const output& original_image,
                            const resize_attrs& attrs) {
  return build(s, "ResizeBilinearGrad", grads, original_image, attrs);
}
output resize_nearest_neighbor_grad(const scope& s, const output& grads, const output& size,
                                    const resize_attrs& attrs) {
  return build(s, "ResizeNearestNeighborGrad", grads, size, attrs);
}

}  // namespace ops
}  // namespace caflow
