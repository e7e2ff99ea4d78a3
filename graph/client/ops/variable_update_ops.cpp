// ScatterNdUpdate, ScatterNdAdd, ScatterNdSub and CountUpTo: client functions (registered in
// graph/ops/variable_update_ops.cpp).
#include "graph/client/ops/variable_update_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
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
