// Where, TopKV2 and InTopKV2: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

// One row per selected element, known only at run time.
status where_shape(shape_context& c) {
  const partial_shape& in = c.input(0);
  c.set_output(0, partial_shape{-1, in.rank_known() ? int64_t{in.rank()} : int64_t{-1}});
  return {};
}

status top_k_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(0, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 0));
  const partial_shape& in = c.input(0);
  int64_t k = -1;
  if (const tensor* kt = c.input_value(1)) {
    k = kt->scalar_value<int32_t>();
    if (k < 0) return c.error("k must be non-negative, got ", k);
  }
  if (!in.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    c.set_output(1, partial_shape::unknown());
    return {};
  }
  std::vector<int64_t> dims = in.dim_vector();
  const int64_t last = dims.back();
  if (k >= 0 && last >= 0 && last < k)
    return c.error("input must have at least k = ", k, " columns, got shape ", in.to_string());
  dims.back() = k;
  c.set_output(0, partial_shape(dims));
  c.set_output(1, partial_shape(dims));
  return {};
}

status in_top_k_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 2));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 0));
  const partial_shape &p = c.input(0), &t = c.input(1);
  const int64_t batch = p.rank_known() ? p.dim(0) : -1;
  const int64_t targets = t.rank_known() ? t.dim(0) : -1;
  if (batch >= 0 && targets >= 0 && batch != targets)
    return c.error("predictions has shape ", p.to_string(), " but targets has shape ",
                   t.to_string(), "; they must agree on the batch size");
  c.set_output(0, partial_shape{batch >= 0 ? batch : targets});
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("Where")
    .input("input: T")
    .output("index: int64")
    .attr("T: {float32, float64, int32, int64, uint8, bool} = bool")
    .set_shape_fn(where_shape);
CAFLOW_REGISTER_OP("TopKV2")
    .input("input: T")
    .input("k: int32")
    .output("values: T")
    .output("indices: int32")
    .attr("sorted: bool = true")
    .attr("T: {float32, float64, int32, int64, uint8}")
    .set_shape_fn(top_k_shape);
CAFLOW_REGISTER_OP("InTopKV2")
    .input("predictions: float32")
    .input("targets: T")
    .input("k: T")
    .output("precision: bool")
    .attr("T: {int32, int64} = int32")
    .set_shape_fn(in_top_k_shape);

}  // namespace caflow
