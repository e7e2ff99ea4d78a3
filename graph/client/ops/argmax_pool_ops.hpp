#pragma once
// Max pooling that also says where each maximum came from, with TensorFlow's names and
// semantics: MaxPoolWithArgmax, and its gradients MaxPoolGradWithArgmax and
// MaxPoolGradGradWithArgmax (for unpooling, as in SegNet). NHWC, float32 and float64.
//
//   auto p = ops::max_pool_with_argmax(root, x, {});   // {output, argmax}
#include <vector>

#include "graph/client/ops/conv_ops.hpp"

namespace caflow::ops {

struct argmax_pool_attrs {
  std::vector<int> ksize{1, 2, 2, 1};
  std::vector<int> strides{1, 2, 2, 1};
  std::string padding = "VALID";
  dtype targmax = dtype::int64;
  // argmax flattens (y, x, c) within the image, or (b, y, x, c) with the batch included.
  bool include_batch_in_index = false;
};

// {output, argmax}: each window's maximum (the first in row-major order among equals) and its
// flat index ((y * width + x) * channels + c, plus b * height * width * channels when
// include_batch_in_index).
std::vector<output> max_pool_with_argmax(const scope& s, const output& input,
                                         const argmax_pool_attrs& attrs = {});
// `grad` (shaped like the pooled output) added at the argmax positions of an input-shaped zero
// tensor.
output max_pool_grad_with_argmax(const scope& s, const output& input, const output& grad,
                                 const output& argmax, const argmax_pool_attrs& attrs = {});
// `grad` (shaped like the input) read at the argmax positions: shaped like the pooled output.
output max_pool_grad_grad_with_argmax(const scope& s, const output& input, const output& grad,
                                      const output& argmax, const argmax_pool_attrs& attrs = {});

}  // namespace caflow::ops
