#pragma once
// Neural-network ops with TensorFlow's names and semantics: activations and their gradients,
// BiasAdd, Softmax and LogSoftmax, the cross-entropy losses, L2Loss, StopGradient and
// BroadcastGradientArgs (the reduction indices that undo broadcasting in gradients).
//
//   auto h = ops::relu(s, ops::bias_add(s, ops::mat_mul(s, x, w), b));
//   auto xent = ops::sparse_softmax_cross_entropy_with_logits(s, logits, labels);
//   auto loss = ops::mean(s, xent.loss, {0});
//
// Row-wise ops (Softmax, LogSoftmax, the losses) work along the last dimension.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

struct bias_add_attrs {
  // "NHWC": the bias runs along the last dimension. "NCHW": along dimension 1 (value of rank
  // 3 or more; the CPU kernels take both, the GPU's NHWC only).
  std::string data_format = "NHWC";
};
// value + bias, with `bias` a vector as long as value's last dimension; value has rank >= 2.
output bias_add(const scope& s, const output& value, const output& bias,
                const bias_add_attrs& attrs = {});
// The gradient of BiasAdd for its bias: out_backprop summed over all but the last dimension.
output bias_add_grad(const scope& s, const output& out_backprop, const bias_add_attrs& attrs = {});

// max(features, 0), and its gradient: `gradients` where features > 0, else 0.
output relu(const scope& s, const output& features);
output relu_grad(const scope& s, const output& gradients, const output& features);
// 1 / (1 + exp(-x)), and its gradient in terms of the output: dy * y * (1 - y).
output sigmoid(const scope& s, const output& x);
output sigmoid_grad(const scope& s, const output& y, const output& dy);
// tanh(x), and its gradient in terms of the output: dy * (1 - y * y).
output tanh(const scope& s, const output& x);
output tanh_grad(const scope& s, const output& y, const output& dy);

// exp(logits) / sum(exp(logits)) along the last dimension; logits has rank >= 1.
output softmax(const scope& s, const output& logits);
// logits - log(sum(exp(logits))) along the last dimension.
output log_softmax(const scope& s, const output& logits);

struct cross_entropy_result {
  output loss;      // [batch]
  output backprop;  // [batch, classes]: softmax(features) - labels, the gradient of loss
};
// -sum(labels * log_softmax(features)) per row; features and labels are [batch, classes], or
// broadcast to it (TF >= 1.14: labels [1, classes] for every row, say).
cross_entropy_result softmax_cross_entropy_with_logits(const scope& s, const output& features,
                                                       const output& labels);
// Like the above with one-hot labels given by index: labels is an int32 or int64 [batch] vector
// of classes in [0, classes); an index out of range fails at run time, naming it.
cross_entropy_result sparse_softmax_cross_entropy_with_logits(const scope& s,
                                                              const output& features,
                                                              const output& labels);

// sum(t * t) / 2, a scalar.
output l2_loss(const scope& s, const output& t);

// The input itself (sharing its bytes), through which no gradient flows.
output stop_gradient(const scope& s, const output& input);

struct broadcast_gradient_args_result {
  output r0, r1;
};
// For shapes s0 and s1 (int32 or int64 vectors) that broadcast together, the dims of the
// broadcast shape that the gradient of each must be summed over to get back to its shape.
// Shapes that do not broadcast fail, naming both: at graph construction when both are
// constants, else at run time.
broadcast_gradient_args_result broadcast_gradient_args(const scope& s, const output& s0,
                                                       const output& s1);

}  // namespace caflow::ops
