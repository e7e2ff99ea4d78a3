#pragma once
// Resizing images, with TensorFlow 1.x's names and semantics: ResizeBilinear and
// ResizeNearestNeighbor over 4-D NHWC images, and their gradients ResizeBilinearGrad and
// ResizeNearestNeighborGrad.
//
//   auto big = ops::resize_bilinear(root, images, {64, 64});   // float32 [n, 64, 64, c]
#include <cstdint>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct resize_attrs {
  bool align_corners = false;       // corners of input and output line up
  bool half_pixel_centers = false;  // sample at pixel centres (TF 2's default behaviour)
};

// ResizeBilinear: images (float32, float64, int32, int64, uint8) to `size` (an int32 vector
// {rows, cols}); the output is always float32.
output resize_bilinear(const scope& s, const output& images, const output& size,
                       const resize_attrs& attrs = {});
output resize_bilinear(const scope& s, const output& images, std::initializer_list<int> size,
                       const resize_attrs& attrs = {});
// ResizeNearestNeighbor: each output pixel copies the input pixel it falls on; the dtype is kept.
output resize_nearest_neighbor(const scope& s, const output& images, const output& size,
                               const resize_attrs& attrs = {});
output resize_nearest_neighbor(const scope& s, const output& images,
                               std::initializer_list<int> size, const resize_attrs& attrs = {});

// ResizeBilinearGrad: `grads` (float32) spread back onto an image shaped like original_image
// (float32 or float64, which is the output's dtype).
output resize_bilinear_grad(const scope& s, const output& grads, const output& original_image,
                            const resize_attrs& attrs = {});
// ResizeNearestNeighborGrad: `grads` summed back onto an image of `size` {rows, cols}.
output resize_nearest_neighbor_grad(const scope& s, const output& grads, const output& size,
                                    const resize_attrs& attrs = {});

}  // namespace caflow::ops
