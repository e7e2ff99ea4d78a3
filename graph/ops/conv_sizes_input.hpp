#pragma once
// The sizes input of a 2-D convolution's backprop (`input_sizes`, `filter_sizes`,
// `orig_input_shape`), shared by Conv2D's and the depthwise convolution's gradients: a vector
// of 4 sizes whose value, when the graph holds it, is the shape.
#include "graph/ir/shape_inference.hpp"
#include "graph/util/conv_geometry.hpp"

namespace caflow::ops_detail {

inline status_or<partial_shape> image_sizes_input(const shape_context& c, int i, const char* what) {
  const partial_shape& s = c.input(i);
  if (s.rank_known() && (s.rank() != 1 || (s.dim(0) >= 0 && s.dim(0) != 4)))
    return c.error(what, " must be a vector of 4 sizes, got shape ", s.to_string());
  if (const tensor* v = c.input_value(i)) {
    auto shape = image_shape_from_sizes(*v, what);
    if (!shape.ok()) return c.error(shape.get_status().message());
    return partial_shape(*shape);
  }
  return partial_shape::unknown_of_rank(4);
}

}  // namespace caflow::ops_detail
