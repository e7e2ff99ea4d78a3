// ShapeN and ConcatOffset: registrations, shape functions and client functions.
#include "graph/client/ops/shape_list_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

status shape_n_shape(shape_context& c) {
  for (int i = 0; i < c.num_inputs(); ++i) {
    const partial_shape& in = c.input(i);
    c.set_output(i, partial_shape{in.rank_known() ? int64_t{in.rank()} : int64_t{-1}});
  }
  return {};
}

status concat_offset_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 0));
  for (int i = 1; i < c.num_inputs(); ++i) {
    CAFLOW_RETURN_IF_ERROR(c.require_rank(i, 1));
    c.set_output(i - 1, c.input(i));
  }
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("ShapeN")
    .input("input: N * T")
    .output("output: N * out_type")
    .attr("N: int >= 1")
    .attr("T: type")
    .attr("out_type: {int32, int64} = int32")
    .cheap()
    .set_shape_fn(shape_n_shape);
CAFLOW_REGISTER_OP("ConcatOffset")
    .input("concat_dim: int32")
    .input("shape: N * int32")
    .output("offset: N * int32")
    .attr("N: int >= 2")
    .cheap()
    .set_shape_fn(concat_offset_shape);

namespace ops {

std::vector<output> shape_n(const scope& s, const std::vector<output>& inputs, dtype out_type) {
  const operation op =
      node_builder(s, "ShapeN").input_list(inputs).attr("out_type", out_type).finalize();
  std::vector<output> outs;
  for (size_t i = 0; i < inputs.size(); ++i) outs.push_back(op.out(static_cast<int>(i)));
  return outs;
}

std::vector<output> concat_offset(const scope& s, const output& concat_dim,
                                  const std::vector<output>& shapes) {
  const operation op = node_builder(s, "ConcatOffset").input(concat_dim).input_list(shapes)
                           .finalize();
  std::vector<output> outs;
  for (size_t i = 0; i < shapes.size(); ++i) outs.push_back(op.out(static_cast<int>(i)));
  return outs;
}

}  // namespace ops
}  // namespace caflow
