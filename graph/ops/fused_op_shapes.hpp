#pragma once
// The shape checks every fused op (_FusedConv2D, the fused depthwise convolutions,
// _FusedMatMul) makes of its fused_ops and args, after its own output shape is known: the
// combination is one graph/util/fused_op_spec.hpp accepts, and each per-channel arg is a
// vector as long as the output's channels. Used by conv_ops.cpp, depthwise_conv_ops.cpp and
// matmul_ops.cpp.
#include "graph/ir/shape_inference.hpp"
#include "graph/util/fused_op_spec.hpp"

namespace caflow::ops_detail {

// REQUIRES: inputs [first_arg, first_arg + num_args) are the fused op's args. `channels` is
// the output's last dim, -1 when unknown.
inline status check_fused_args(shape_context& c, bool batch_norm_allowed, int first_arg,
                               int64_t channels) {
  auto spec = parse_fused_op_spec(c.node(), batch_norm_allowed);
  if (!spec.ok()) return c.error(spec.get_status().message());
  static constexpr const char* bias_names[] = {"bias"};
  static constexpr const char* norm_names[] = {"scale", "offset", "mean", "variance"};
  const char* const* names = spec->base == fused_base::bias_add ? bias_names : norm_names;
  for (int a = 0; a < spec->channel_args(); ++a) {
    const partial_shape& s = c.input(first_arg + a);
    if (!s.rank_known()) continue;
    if (s.rank() != 1 || (channels >= 0 && s.dim(0) >= 0 && s.dim(0) != channels))
      return c.error(names[a], " (arg ", a, " of fused_ops ", describe_fused_ops(spec->fused_ops),
                     ") must be a vector of the output's ", channels, " channels, got shape ",
                     s.to_string());
  }
  if (spec->has_prelu()) {
    const partial_shape& alpha = c.input(first_arg + spec->channel_args());
    if (alpha.fully_defined() && channels >= 0) {
      const tensor_shape a = alpha.to_shape();
      const bool scalar = a.num_elements() == 1;
      const bool per_channel =
          a.num_elements() == channels && a.rank() >= 1 && a.dim(a.rank() - 1) == channels;
      if (!scalar && !per_channel)
        return c.error("Prelu's alpha must be a scalar or hold one value per output channel (",
                       channels, "), got shape ", alpha.to_string());
    }
  }
  return {};
}

}  // namespace caflow::ops_detail
