// ShapeN and ConcatOffset: registrations and shape functions.
#include "graph/ir/op_def.hpp"
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

}  // namespace caflow
