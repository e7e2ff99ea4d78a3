// ScatterNdUpdate, ScatterNdAdd, ScatterNdSub and CountUpTo: registrations and shape functions.
#include "graph/ir/op_def.hpp"
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

}  // namespace caflow
