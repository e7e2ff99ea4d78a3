// The neural-network ops: BiasAdd, Relu, Sigmoid, Tanh, the softmaxes and cross entropies,
// L2Loss, StopGradient and BroadcastGradientArgs, with their *Grad ops: registrations and shape
// functions.
#include <algorithm>

#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/broadcast_reduction.hpp"

namespace caflow {
namespace {

// Like shape_context's rank checks, naming the input as the op does.
status require_rank(shape_context& c, int i, const char* name, int rank) {
  const partial_shape& in = c.input(i);
  if (in.rank_known() && in.rank() != rank)
    return c.error(name, " must have rank ", rank, ", got shape ", in.to_string());
  return {};
}

status require_rank_at_least(shape_context& c, int i, const char* name, int rank) {
  const partial_shape& in = c.input(i);
  if (in.rank_known() && in.rank() < rank)
    return c.error(name, " must have rank at least ", rank, ", got shape ", in.to_string());
  return {};
}

// The dimension BiasAdd adds its bias along, for the node's data_format, after checking the
// rank of its input 0 (called `input`); -1 while the rank is unknown.
status_or<int> bias_dim(shape_context& c, const char* input) {
  std::string data_format;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("data_format", &data_format));
  if (data_format != "NHWC" && data_format != "NCHW")
    return c.error("data_format must be \"NHWC\" or \"NCHW\", got \"", data_format, "\"");
  const bool nchw = data_format == "NCHW";
  CAFLOW_RETURN_IF_ERROR(require_rank_at_least(c, 0, input, nchw ? 3 : 2));
  if (!c.input(0).rank_known()) return -1;
  return nchw ? 1 : c.input(0).rank() - 1;
}

status bias_add_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const int dim, bias_dim(c, "value"));
  CAFLOW_RETURN_IF_ERROR(require_rank(c, 1, "bias", 1));
  const partial_shape& value = c.input(0);
  if (dim < 0 || !c.input(1).rank_known()) {
    c.set_output(0, value);
    return {};
  }
  const int64_t channels = value.dim(dim), biases = c.input(1).dim(0);
  if (channels >= 0 && biases >= 0 && channels != biases)
    return c.error("bias of shape ", c.input(1).to_string(), " must have as many elements as",
                   " dimension ", dim, " of value of shape ", value.to_string());
  std::vector<int64_t> dims = value.dim_vector();
  dims[dim] = std::max(channels, biases);
  c.set_output(0, partial_shape(dims));
  return {};
}

status bias_add_grad_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(const int dim, bias_dim(c, "out_backprop"));
  c.set_output(0, partial_shape{dim < 0 ? -1 : c.input(0).dim(dim)});
  return {};
}

status softmax_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_rank_at_least(c, 0, "logits", 1));
  c.set_output(0, c.input(0));
  return {};
}

// Both losses: loss [batch], backprop [batch, classes].
void set_loss_outputs(shape_context& c, const partial_shape& features) {
  c.set_output(0, partial_shape{features.dim(0)});
  c.set_output(1, features);
}

// TF >= 1.14: labels broadcast against features (labels [1, classes] for every row, say); the
// broadcast shape must be a matrix [batch, classes].
status xent_shape(shape_context& c) {
  auto both = broadcast_shapes(c.input(0), c.input(1));
  if (!both.ok())
    return c.error("features of shape ", c.input(0).to_string(), " and labels of shape ",
                   c.input(1).to_string(), " must be broadcastable: ", both.get_status().message());
  if (both->rank_known() && both->rank() != 2)
    return c.error("features of shape ", c.input(0).to_string(), " and labels of shape ",
                   c.input(1).to_string(), " must be matrices or broadcast to one, got shape ",
                   both->to_string());
  set_loss_outputs(c, *partial_shape::unknown_of_rank(2).merge(*both));
  return {};
}

status sparse_xent_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_rank(c, 0, "features", 2));
  CAFLOW_RETURN_IF_ERROR(require_rank(c, 1, "labels", 1));
  std::vector<int64_t> dims = partial_shape::unknown_of_rank(2).merge(c.input(0))->dim_vector();
  const int64_t labels = c.input(1).rank_known() ? c.input(1).dim(0) : -1;
  if (dims[0] >= 0 && labels >= 0 && dims[0] != labels)
    return c.error("labels of shape ", c.input(1).to_string(),
                   " must have one entry per row of features of shape ", c.input(0).to_string());
  dims[0] = std::max(dims[0], labels);
  set_loss_outputs(c, partial_shape(dims));
  return {};
}

// Exact output lengths (and early errors) when both shapes are constants.
status broadcast_gradient_args_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_rank(c, 0, "s0", 1));
  CAFLOW_RETURN_IF_ERROR(require_rank(c, 1, "s1", 1));
  const tensor* s0 = c.input_value(0);
  const tensor* s1 = c.input_value(1);
  if (s0 == nullptr || s1 == nullptr) {
    c.set_output(0, partial_shape{-1});
    c.set_output(1, partial_shape{-1});
    return {};
  }
  auto r = broadcast_gradient_reduction(index_values(*s0), index_values(*s1));
  if (!r.ok()) return c.error(r.get_status().message());
  c.set_output(0, partial_shape{static_cast<int64_t>(r->r0.size())});
  c.set_output(1, partial_shape{static_cast<int64_t>(r->r1.size())});
  return {};
}

}  // namespace


// Type lists are TensorFlow's, restricted to caflow's dtypes; the CPU kernels
// (kernels/cpu/nn_*.cpp) cover float32 and float64, and Relu also int32 and int64. Another
// allowed dtype fails at kernel lookup, naming it. Element-wise ops are cheap like the other
// unary ops (large inputs still spread over the intra-op pool); row-wise ones are not.
CAFLOW_REGISTER_OP("BiasAdd").input("value: T").input("bias: T").output("output: T")
    .attr("T: {float32, float64, int32, int64, uint8}").attr("data_format: string = 'NHWC'")
    .cheap().set_shape_fn(bias_add_shape);
CAFLOW_REGISTER_OP("BiasAddGrad").input("out_backprop: T").output("output: T")
    .attr("T: {float32, float64, int32, int64, uint8}").attr("data_format: string = 'NHWC'")
    .set_shape_fn(bias_add_grad_shape);

CAFLOW_REGISTER_OP("Relu").input("features: T").output("activations: T")
    .attr("T: {float32, float64, int32, int64, uint8}").cheap()
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("ReluGrad").input("gradients: T").input("features: T").output("backprops: T")
    .attr("T: {float32, float64, int32, int64, uint8}").cheap()
    .set_shape_fn(shape_fns::merge_all_inputs);
CAFLOW_REGISTER_OP("Sigmoid").input("x: T").output("y: T").attr("T: {float32, float64}").cheap()
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("SigmoidGrad").input("y: T").input("dy: T").output("z: T")
    .attr("T: {float32, float64}").cheap().set_shape_fn(shape_fns::merge_all_inputs);
CAFLOW_REGISTER_OP("Tanh").input("x: T").output("y: T").attr("T: {float32, float64}").cheap()
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("TanhGrad").input("y: T").input("dy: T").output("z: T")
    .attr("T: {float32, float64}").cheap().set_shape_fn(shape_fns::merge_all_inputs);

CAFLOW_REGISTER_OP("Softmax").input("logits: T").output("softmax: T")
    .attr("T: {float32, float64}").set_shape_fn(softmax_shape);
CAFLOW_REGISTER_OP("LogSoftmax").input("logits: T").output("logsoftmax: T")
    .attr("T: {float32, float64}").set_shape_fn(softmax_shape);
CAFLOW_REGISTER_OP("SoftmaxCrossEntropyWithLogits").input("features: T").input("labels: T")
    .output("loss: T").output("backprop: T").attr("T: {float32, float64}")
    .set_shape_fn(xent_shape);
CAFLOW_REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits").input("features: T")
    .input("labels: Tlabels").output("loss: T").output("backprop: T")
    .attr("T: {float32, float64}").attr("Tlabels: {int32, int64} = int64")
    .set_shape_fn(sparse_xent_shape);
CAFLOW_REGISTER_OP("L2Loss").input("t: T").output("output: T").attr("T: {float32, float64}")
    .set_shape_fn(shape_fns::scalar);

CAFLOW_REGISTER_OP("StopGradient").input("input: T").output("output: T").attr("T: type").cheap()
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("BroadcastGradientArgs").input("s0: T").input("s1: T").output("r0: T")
    .output("r1: T").attr("T: {int32, int64} = int32").cheap()
    .set_shape_fn(broadcast_gradient_args_shape);

}  // namespace caflow
