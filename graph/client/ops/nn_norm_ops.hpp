#pragma once
// Normalization ops with TensorFlow's names and semantics: FusedBatchNormV3 and its gradient
// FusedBatchNormGradV3 (and the older FusedBatchNorm, FusedBatchNormV2, FusedBatchNormGrad and
// FusedBatchNormGradV2 that imported TF 1.x graphs carry: the same without reserve_space_3 and
// exponential_avg_factor), LRN (local response normalization across channels) and LRNGrad.
//
//   auto bn = ops::fused_batch_norm(root, x, gamma, beta, mean, var, {.is_training = true});
//   // bn.y normalized per channel; bn.batch_mean / bn.batch_variance for the moving averages.
//
// Channels are the last dimension (data_format "NHWC" for 4-D, "NDHWC" for 5-D inputs); the
// CPU kernels refuse "NCHW" / "NCDHW" as UNIMPLEMENTED. float32, and float64 for checks (TF's
// U is float32 only: here U must equal T).
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct fused_batch_norm_attrs {
  float epsilon = 0.0001f;
  // With is_training: batch_mean = (1 - f) * mean + f * this batch's mean (same for the
  // variance). 1 ignores the mean and variance inputs, which may then be empty.
  float exponential_avg_factor = 1.0f;
  std::string data_format = "NHWC";
  bool is_training = true;
};

struct fused_batch_norm_outputs {
  output y;
  output batch_mean;      // training: the batch's mean (averaged, see above); else `mean`
  output batch_variance;  // training: the batch's unbiased variance (averaged); else `variance`
  output reserve_space_1, reserve_space_2;  // the mean and the (biased) variance y used
  output reserve_space_3;                   // unused by the CPU kernels: an empty vector
};

// y = (x - m) / sqrt(v + epsilon) * scale + offset per channel, where m, v are the batch's mean
// and biased variance when training and the `mean` and `variance` inputs otherwise.
fused_batch_norm_outputs fused_batch_norm(const scope& s, const output& x, const output& scale,
                                          const output& offset, const output& mean,
                                          const output& variance,
                                          const fused_batch_norm_attrs& attrs = {});

struct fused_batch_norm_grad_outputs {
  output x_backprop, scale_backprop, offset_backprop;
  output reserve_space_4, reserve_space_5;  // empty vectors
};

// FusedBatchNormGradV3: the gradients of FusedBatchNormV3's y with respect to x, scale and
// offset, given dy, the forward x and scale, and the forward op's reserve spaces (or, not
// training, the population mean and variance).
fused_batch_norm_grad_outputs fused_batch_norm_grad(
    const scope& s, const output& y_backprop, const output& x, const output& scale,
    const output& reserve_space_1, const output& reserve_space_2, const output& reserve_space_3,
    const fused_batch_norm_attrs& attrs = {});

struct lrn_attrs {
  int64_t depth_radius = 5;
  float bias = 1.0f;
  float alpha = 1.0f;
  float beta = 0.5f;
};

// LRN over 4-D NHWC `input`: y[..., d] = x[..., d] / (bias + alpha * sum of x[..., k]^2 for
// k in [d - depth_radius, d + depth_radius])^beta.
output lrn(const scope& s, const output& input, const lrn_attrs& attrs = {});
// LRN's gradient given the incoming gradient, LRN's input and its output.
output lrn_grad(const scope& s, const output& input_grads, const output& input_image,
                const output& output_image, const lrn_attrs& attrs = {});

}  // namespace caflow::ops
