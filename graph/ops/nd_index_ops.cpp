// GatherNd, ScatterNd and SparseToDense: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/nd_index_rules.hpp"

namespace caflow {
namespace {

status gather_nd_shape_fn(shape_context& c) {
  auto out = gather_nd_shape(c.input(0), c.input(1));
  if (!out.ok()) return c.error(out.get_status().message());
  c.set_output(0, *out);
  return {};
}

status scatter_nd_shape_fn(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 1));
  partial_shape shape = partial_shape::unknown();
  if (const tensor* v = c.input_value(2)) {
    const std::vector<int64_t> dims = index_values(*v);
    auto s = tensor_shape::make(dims);
    if (!s.ok()) return c.error("shape ", format_dims(dims), ": ", s.get_status().message());
    shape = *s;
  } else if (c.input(2).rank_known() && c.input(2).dim(0) >= 0) {
    shape = partial_shape::unknown_of_rank(static_cast<int>(c.input(2).dim(0)));
  }
  if (status st = check_scatter_nd(c.input(0), c.input(1), shape); !st.ok())
    return c.error(st.message());
  c.set_output(0, shape);
  return {};
}

status sparse_to_dense_shape(shape_context& c) {
  const partial_shape& idx = c.input(0);
  if (idx.rank_known() && idx.rank() > 2)
    return c.error("sparse_indices must have rank at most 2, got shape ", idx.to_string());
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const partial_shape& values = c.input(2);
  if (values.rank_known() && values.rank() > 1)
    return c.error("sparse_values must be a scalar or a vector, got shape ", values.to_string());
  CAFLOW_RETURN_IF_ERROR(c.require_rank(3, 0));
  if (const tensor* v = c.input_value(1)) {
    const std::vector<int64_t> dims = index_values(*v);
    auto shape = tensor_shape::make(dims);
    if (!shape.ok())
      return c.error("output_shape ", format_dims(dims), ": ", shape.get_status().message());
    c.set_output(0, *shape);
  } else {
    const int64_t n = c.input(1).rank_known() ? c.input(1).dim(0) : -1;
    c.set_output(0, n < 0 ? partial_shape::unknown()
                          : partial_shape::unknown_of_rank(static_cast<int>(n)));
  }
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("SparseToDense")
    .input("sparse_indices: Tindices")
    .input("output_shape: Tindices")
    .input("sparse_values: T")
    .input("default_value: T")
    .output("dense: T")
    .attr("validate_indices: bool = true")
    .attr("T: type")
    .attr("Tindices: {int32, int64}")
    .set_shape_fn(sparse_to_dense_shape);
CAFLOW_REGISTER_OP("GatherNd")
    .input("params: Tparams")
    .input("indices: Tindices")
    .output("output: Tparams")
    .attr("Tparams: type")
    .attr("Tindices: {int32, int64}")
    .set_shape_fn(gather_nd_shape_fn);
CAFLOW_REGISTER_OP("ScatterNd")
    .input("indices: Tindices")
    .input("updates: T")
    .input("shape: Tindices")
    .output("output: T")
    .attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}")
    .set_shape_fn(scatter_nd_shape_fn);

}  // namespace caflow
