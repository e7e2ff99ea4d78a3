// ListDiff, UniqueWithCounts and Bincount: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

status list_diff_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  c.set_output(0, partial_shape{-1});
  c.set_output(1, partial_shape{-1});
  return {};
}

status unique_with_counts_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 1));
  c.set_output(0, partial_shape{-1});
  c.set_output(1, c.input(0).rank_known() ? c.input(0) : partial_shape{-1});
  c.set_output(2, partial_shape{-1});
  return {};
}

status bincount_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 0));
  int64_t size = -1;
  if (const tensor* v = c.input_value(1)) {
    size = v->scalar_value<int32_t>();
    if (size < 0) return c.error("size must be non-negative, got ", size);
  }
  c.set_output(0, partial_shape{size});
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("ListDiff")
    .input("x: T")
    .input("y: T")
    .output("out: T")
    .output("idx: out_idx")
    .attr("T: type")
    .attr("out_idx: {int32, int64} = int32")
    .set_shape_fn(list_diff_shape);
CAFLOW_REGISTER_OP("UniqueWithCounts")
    .input("x: T")
    .output("y: T")
    .output("idx: out_idx")
    .output("count: out_idx")
    .attr("T: type")
    .attr("out_idx: {int32, int64} = int32")
    .set_shape_fn(unique_with_counts_shape);
CAFLOW_REGISTER_OP("Bincount")
    .input("arr: int32")
    .input("size: int32")
    .input("weights: T")
    .output("bins: T")
    .attr("T: {int32, int64, float32, float64}")
    .set_shape_fn(bincount_shape);

}  // namespace caflow
