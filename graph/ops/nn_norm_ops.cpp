// FusedBatchNorm (V1 to V3), its gradients, LRN and LRNGrad: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

// x is 4-D (NHWC) or 5-D (NDHWC) with channels last; returns the channel count (-1 unknown).
status_or<int64_t> channels_of(const shape_context& c, int i, const char* what) {
  std::string format;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("data_format", &format));
  if (format != "NHWC" && format != "NCHW" && format != "NDHWC" && format != "NCDHW")
    return c.error("invalid data_format '", format, "' (expected NHWC, NCHW, NDHWC or NCDHW)");
  const partial_shape& x = c.input(i);
  if (!x.rank_known()) return int64_t{-1};
  const int want = format.size() == 4 ? 4 : 5;
  if (x.rank() != want)
    return c.error(what, " must be ", want, "-dimensional for data_format ", format,
                   ", got shape ", x.to_string());
  return x.dim(format[1] == 'C' ? 1 : want - 1);
}

// Input i is a vector of `channels` entries (or, when `may_be_empty`, of none).
status require_channel_vector(const shape_context& c, int i, const char* what, int64_t channels,
                              bool may_be_empty = false) {
  const partial_shape& v = c.input(i);
  if (!v.rank_known()) return {};
  if (v.rank() != 1) return c.error(what, " must be a vector, got shape ", v.to_string());
  const int64_t n = v.dim(0);
  if (channels >= 0 && n >= 0 && n != channels && !(may_be_empty && n == 0))
    return c.error(what, " has ", n, " entries but x has ", channels, " channels");
  return {};
}

status fused_batch_norm_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(int64_t channels, channels_of(c, 0, "x"));
  bool training = true;
  float factor = 1;  // FusedBatchNorm and FusedBatchNormV2 have no exponential_avg_factor
  CAFLOW_RETURN_IF_ERROR(c.get_attr("is_training", &training));
  if (c.node().attrs.count("exponential_avg_factor"))
    CAFLOW_RETURN_IF_ERROR(c.get_attr("exponential_avg_factor", &factor));
  const bool stats_optional = training && factor == 1.0f;
  CAFLOW_RETURN_IF_ERROR(require_channel_vector(c, 1, "scale", channels));
  CAFLOW_RETURN_IF_ERROR(require_channel_vector(c, 2, "offset", channels));
  CAFLOW_RETURN_IF_ERROR(require_channel_vector(c, 3, "mean", channels, stats_optional));
  CAFLOW_RETURN_IF_ERROR(require_channel_vector(c, 4, "variance", channels, stats_optional));
  for (int i : {1, 2})
    if (channels < 0 && c.input(i).rank_known()) channels = c.input(i).dim(0);
  c.set_output(0, c.input(0));
  for (int i = 1; i <= 4; ++i) c.set_output(i, partial_shape{channels});
  if (c.num_outputs() > 5) c.set_output(5, partial_shape{0});
  return {};
}

status fused_batch_norm_grad_shape(shape_context& c) {
  CAFLOW_ASSIGN_OR_RETURN(int64_t channels, channels_of(c, 1, "x"));
  auto merged = c.input(0).merge(c.input(1));
  if (!merged.ok())
    return c.error("y_backprop has shape ", c.input(0).to_string(), " but x has shape ",
                   c.input(1).to_string());
  CAFLOW_RETURN_IF_ERROR(require_channel_vector(c, 2, "scale", channels));
  CAFLOW_RETURN_IF_ERROR(require_channel_vector(c, 3, "reserve_space_1", channels));
  CAFLOW_RETURN_IF_ERROR(require_channel_vector(c, 4, "reserve_space_2", channels));
  if (channels < 0 && c.input(2).rank_known()) channels = c.input(2).dim(0);
  // reserve_space_4 and _5 of V3 (reserve_space_3 and _4 of the older versions): empty.
  c.set_output(0, *merged);
  c.set_output(1, partial_shape{channels});
  c.set_output(2, partial_shape{channels});
  c.set_output(3, partial_shape{0});
  c.set_output(4, partial_shape{0});
  return {};
}

status lrn_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 4));
  int64_t radius = 0;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("depth_radius", &radius));
  if (radius < 0) return c.error("depth_radius must be non-negative, got ", radius);
  c.set_output(0, c.input(0));
  return {};
}

status lrn_grad_shape(shape_context& c) {
  partial_shape merged = c.input(0);
  for (int i = 0; i < 3; ++i) {
    CAFLOW_RETURN_IF_ERROR(c.require_rank(i, 4));
    auto m = merged.merge(c.input(i));
    if (!m.ok())
      return c.error("input_grads, input_image and output_image must have one shape, got ",
                     c.input(0).to_string(), ", ", c.input(1).to_string(), " and ",
                     c.input(2).to_string());
    merged = *m;
  }
  c.set_output(0, merged);
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("FusedBatchNormV3")
    .input("x: T")
    .input("scale: U")
    .input("offset: U")
    .input("mean: U")
    .input("variance: U")
    .output("y: T")
    .output("batch_mean: U")
    .output("batch_variance: U")
    .output("reserve_space_1: U")
    .output("reserve_space_2: U")
    .output("reserve_space_3: U")
    .attr("T: {float32, float64}")
    .attr("U: {float32, float64}")
    .attr("epsilon: float = 0.0001")
    .attr("exponential_avg_factor: float = 1.0")
    .attr("data_format: string = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(fused_batch_norm_shape);
CAFLOW_REGISTER_OP("FusedBatchNormGradV3")
    .input("y_backprop: T")
    .input("x: T")
    .input("scale: U")
    .input("reserve_space_1: U")
    .input("reserve_space_2: U")
    .input("reserve_space_3: U")
    .output("x_backprop: T")
    .output("scale_backprop: U")
    .output("offset_backprop: U")
    .output("reserve_space_4: U")
    .output("reserve_space_5: U")
    .attr("T: {float32, float64}")
    .attr("U: {float32, float64}")
    .attr("epsilon: float = 0.0001")
    .attr("data_format: string = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(fused_batch_norm_grad_shape);

// The older versions TF 1.x graphs still carry: no reserve_space_3 and no
// exponential_avg_factor; FusedBatchNorm has one type for x and the statistics (float32 in TF,
// float64 here too).
CAFLOW_REGISTER_OP("FusedBatchNorm")
    .input("x: T")
    .input("scale: T")
    .input("offset: T")
    .input("mean: T")
    .input("variance: T")
    .output("y: T")
    .output("batch_mean: T")
    .output("batch_variance: T")
    .output("reserve_space_1: T")
    .output("reserve_space_2: T")
    .attr("T: {float32, float64}")
    .attr("epsilon: float = 0.0001")
    .attr("data_format: string = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(fused_batch_norm_shape);
CAFLOW_REGISTER_OP("FusedBatchNormV2")
    .input("x: T")
    .input("scale: U")
    .input("offset: U")
    .input("mean: U")
    .input("variance: U")
    .output("y: T")
    .output("batch_mean: U")
    .output("batch_variance: U")
    .output("reserve_space_1: U")
    .output("reserve_space_2: U")
    .attr("T: {float32, float64}")
    .attr("U: {float32, float64}")
    .attr("epsilon: float = 0.0001")
    .attr("data_format: string = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(fused_batch_norm_shape);
CAFLOW_REGISTER_OP("FusedBatchNormGrad")
    .input("y_backprop: T")
    .input("x: T")
    .input("scale: T")
    .input("reserve_space_1: T")
    .input("reserve_space_2: T")
    .output("x_backprop: T")
    .output("scale_backprop: T")
    .output("offset_backprop: T")
    .output("reserve_space_3: T")
    .output("reserve_space_4: T")
    .attr("T: {float32, float64}")
    .attr("epsilon: float = 0.0001")
    .attr("data_format: string = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(fused_batch_norm_grad_shape);
CAFLOW_REGISTER_OP("FusedBatchNormGradV2")
    .input("y_backprop: T")
    .input("x: T")
    .input("scale: U")
    .input("reserve_space_1: U")
    .input("reserve_space_2: U")
    .output("x_backprop: T")
    .output("scale_backprop: U")
    .output("offset_backprop: U")
    .output("reserve_space_3: U")
    .output("reserve_space_4: U")
    .attr("T: {float32, float64}")
    .attr("U: {float32, float64}")
    .attr("epsilon: float = 0.0001")
    .attr("data_format: string = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(fused_batch_norm_grad_shape);

#define CAFLOW_LRN_ATTRS                                                                  \
  attr("depth_radius: int = 5")                                                           \
      .attr("bias: float = 1.0")                                                          \
      .attr("alpha: float = 1.0")                                                         \
      .attr("beta: float = 0.5")                                                          \
      .attr("T: {float32, float64} = float32")

CAFLOW_REGISTER_OP("LRN").input("input: T").output("output: T").CAFLOW_LRN_ATTRS.set_shape_fn(
    lrn_shape);
CAFLOW_REGISTER_OP("LRNGrad")
    .input("input_grads: T")
    .input("input_image: T")
    .input("output_image: T")
    .output("output: T")
    .CAFLOW_LRN_ATTRS.set_shape_fn(lrn_grad_shape);

#undef CAFLOW_LRN_ATTRS

}  // namespace caflow
