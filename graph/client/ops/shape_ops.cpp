#include "graph/client/ops/shape_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"

namespace caflow {
namespace ops {
namespace {
// A helper Const must not take the node name the caller asked for the op itself.
scope for_helper_const(const scope& s) { return s.with_op_name(""); }
}  // namespace

output reshape(const scope& s, const output& x, const output& shape) {
  return node_builder(s, "Reshape").input(x).input(shape).finalize().out();
}

output reshape(const scope& s, const output& x, const std::vector<int64_t>& dims) {
  return reshape(s, x, constant(for_helper_const(s), tensor::from_vector<int64_t>(dims)));
}

output shape(const scope& s, const output& input, const shape_attrs& attrs) {
  return node_builder(s, "Shape").input(input).attr("out_type", attrs.out_type).finalize().out();
}

output size(const scope& s, const output& input, const size_attrs& attrs) {
  return node_builder(s, "Size").input(input).attr("out_type", attrs.out_type).finalize().out();
}

output rank(const scope& s, const output& input) {
  return node_builder(s, "Rank").input(input).finalize().out();
}

output fill(const scope& s, const output& dims, const output& value) {
  return node_builder(s, "Fill").input(dims).input(value).finalize().out();
}

output zeros_like(const scope& s, const output& x) {
  return node_builder(s, "ZerosLike").input(x).finalize().out();
}

output ones_like(const scope& s, const output& x) {
  return node_builder(s, "OnesLike").input(x).finalize().out();
}

output expand_dims(const scope& s, const output& input, const output& axis) {
  return node_builder(s, "ExpandDims").input(input).input(axis).finalize().out();
}

output expand_dims(const scope& s, const output& input, int64_t axis) {
  return expand_dims(s, input, constant(for_helper_const(s), tensor::scalar<int64_t>(axis)));
}

output squeeze(const scope& s, const output& input, const squeeze_attrs& attrs) {
  return node_builder(s, "Squeeze").input(input).attr("squeeze_dims", attrs.axes).finalize()
      .out();
}

output range(const scope& s, const output& start, const output& limit, const output& delta) {
  return node_builder(s, "Range").input(start).input(limit).input(delta).finalize().out();
}

output one_hot(const scope& s, const output& indices, const output& depth,
               const output& on_value, const output& off_value, const one_hot_attrs& attrs) {
  return node_builder(s, "OneHot").input(indices).input(depth).input(on_value)
      .input(off_value).attr("axis", attrs.axis).finalize().out();
}

output pack(const scope& s, const std::vector<output>& values, const pack_attrs& attrs) {
  return node_builder(s, "Pack").input_list(values).attr("axis", attrs.axis).finalize().out();
}

std::vector<output> unpack(const scope& s, const output& value, int64_t num,
                           const unpack_attrs& attrs) {
  const operation op = node_builder(s, "Unpack").input(value).attr("num", num)
                           .attr("axis", attrs.axis).finalize();
  // Always `num` entries, so callers may index them; after an error they are invalid outputs
  // and the scope holds the error.
  std::vector<output> outs;
  for (int64_t i = 0; i < num; ++i) outs.push_back(op.out(static_cast<int>(i)));
  return outs;
}

}  // namespace ops
}  // namespace caflow
