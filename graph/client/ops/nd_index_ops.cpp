// GatherNd and ScatterNd: registrations, shape functions and client functions.
#include "graph/client/ops/nd_index_ops.hpp"

#include "graph/client/node_builder.hpp"
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

}  // namespace

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

namespace ops {

output gather_nd(const scope& s, const output& params, const output& indices) {
  return node_builder(s, "GatherNd").input(params).input(indices).finalize().out();
}

output scatter_nd(const scope& s, const output& indices, const output& updates,
                  const output& shape) {
  return node_builder(s, "ScatterNd").input(indices).input(updates).input(shape).finalize().out();
}

}  // namespace ops
}  // namespace caflow
