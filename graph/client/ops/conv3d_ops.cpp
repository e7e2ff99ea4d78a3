// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2: client functions (registered in
// graph/ops/conv3d_ops.cpp).
#include "graph/client/ops/conv3d_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {
namespace {

output build(const scope& s, const char* op, const std::vector<output>& inputs,
             const conv3d_attrs& a) {
  node_builder b(s, op);
  for (const output& in : inputs) b.input(in);
  return b.attr("strides", a.strides)
      .attr("padding", a.padding)
      .attr("data_format", a.data_format)
      .attr("dilations", a.dilations)
      .finalize()
      .out();
}

}  // namespace

output conv3d(const scope& s, const output& input, const output& filter,
              const conv3d_attrs& attrs) {
  return build(s, "Conv3D", {input, filter}, attrs);
}
output conv3d_backprop_input(const scope& s, const output& input_sizes, const output& filter,
                             const output& out_backprop, const conv3d_attrs& attrs) {
  return build(s, "Conv3DBackpropInputV2", {input_sizes, filter, out_backprop}, attrs);
}
output conv3d_backprop_filter(const scope& s, const output& input, const output& filter_sizes,
                              const output& out_backprop, const conv3d_attrs& attrs) {
  return build(s, "Conv3DBackpropFilterV2", {input, filter_sizes, out_backprop}, attrs);
}

}  // namespace ops
}  // namespace caflow
