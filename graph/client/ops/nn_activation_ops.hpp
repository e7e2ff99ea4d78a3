#pragma once
// More activation functions, with TensorFlow 1.x names and semantics, and the *Grad ops their
// gradients are built from. Kernels in kernels/cpu/nn_activation_extra_kernels.cpp.
#include "graph/client/scope.hpp"

namespace caflow::ops {

output relu6(const scope& s, const output& features);        // min(max(x, 0), 6)
output elu(const scope& s, const output& features);          // x < 0 ? exp(x) - 1 : x
output selu(const scope& s, const output& features);         // scale * (x < 0 ? alpha (e^x - 1) : x)
output softplus(const scope& s, const output& features);     // log(1 + exp(x))
output softsign(const scope& s, const output& features);     // x / (1 + |x|)
struct leaky_relu_attrs {
  float alpha = 0.2f;
};
output leaky_relu(const scope& s, const output& features, const leaky_relu_attrs& attrs = {});
// x > 0 ? x : alpha * x, alpha broadcasting to x (the TF.js converter's Prelu; usually one
// slope per channel).
output prelu(const scope& s, const output& x, const output& alpha);

// Gradients: `gradients` flows in; the other input is the forward op's features, or for Elu
// and Selu its outputs (as TF).
output relu6_grad(const scope& s, const output& gradients, const output& features);
output elu_grad(const scope& s, const output& gradients, const output& outputs);
output selu_grad(const scope& s, const output& gradients, const output& outputs);
output softplus_grad(const scope& s, const output& gradients, const output& features);
output softsign_grad(const scope& s, const output& gradients, const output& features);
output leaky_relu_grad(const scope& s, const output& gradients, const output& features,
                       const leaky_relu_attrs& attrs = {});

}  // namespace caflow::ops
