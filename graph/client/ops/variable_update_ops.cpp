// ScatterNdUpdate, ScatterNdAdd, ScatterNdSub and CountUpTo: registrations, shape functions and
// client functions.
#include "graph/client/ops/variable_update_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/nd_index_rules.hpp"

namespace caflow {
namespace {

status scatter_nd_update_shape(shape_context& c) {
  if (status st = check_scatter_nd(c.input(1), c.input(2), c.input(0)); !st.ok())
    return c.error(st.message());
  c.set_output(0, c.input(0));
  return {};
}

status count_up_to_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 0));
  c.set_output(0, partial_shape(tensor_shape{}));
  return {};
}

}  // namespace

// TF's defaults: ScatterNdUpdate locks (its writes are not commutative), Add/Sub do not.
CAFLOW_REGISTER_OP("ScatterNdUpdate").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: type")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = true").stateful()
    .set_shape_fn(scatter_nd_update_shape);
CAFLOW_REGISTER_OP("ScatterNdAdd").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(scatter_nd_update_shape);
CAFLOW_REGISTER_OP("ScatterNdSub").input("ref: Ref(T)").input("indices: Tindices")
    .input("updates: T").output("output_ref: Ref(T)").attr("T: {float32, float64, int32, int64}")
    .attr("Tindices: {int32, int64}").attr("use_locking: bool = false").stateful()
    .set_shape_fn(scatter_nd_update_shape);
CAFLOW_REGISTER_OP("CountUpTo").input("ref: Ref(T)").output("output: T").attr("limit: int")
    .attr("T: {int32, int64}").stateful().set_shape_fn(count_up_to_shape);

namespace ops {
namespace {
output scatter_nd(const char* op, const scope& s, const output& ref, const output& indices,
                  const output& updates, const scatter_nd_attrs& attrs, bool default_locking) {
  return node_builder(s, op).input(ref).input(indices).input(updates)
      .attr("use_locking", attrs.use_locking.value_or(default_locking)).finalize().out();
}
}  // namespace

output scatter_nd_update(const scope& s, const output& ref, const output& indices,
                         const output& updates, const scatter_nd_attrs& attrs) {
  return scatter_nd("ScatterNdUpdate", s, ref, indices, updates, attrs, true);
}
output scatter_nd_add(const scope& s, const output& ref, const output& indices,
                      const output& updates, const scatter_nd_attrs& attrs) {
  return scatter_nd("ScatterNdAdd", s, ref, indices, updates, attrs, false);
}
output scatter_nd_sub(const scope& s, const output& ref, const output& indices,
                      const output& updates, const scatter_nd_attrs& attrs) {
  return scatter_nd("ScatterNdSub", s, ref, indices, updates, attrs, false);
}

output count_up_to(const scope& s, const output& ref, int64_t limit) {
  return node_builder(s, "CountUpTo").input(ref).attr("limit", limit).finalize().out();
}

}  // namespace ops
}  // namespace caflow
