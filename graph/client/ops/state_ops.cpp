#include "graph/client/ops/state_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/ir/tensor_slice.hpp"

namespace caflow {
namespace ops {

output variable(const scope& s, const partial_shape& shape, dtype type, const variable_attrs& attrs) {
  node_builder b(s, "VariableV2", "Variable");
  b.attr("shape", shape).attr("dtype", type).attr("container", attrs.container)
      .attr("shared_name", attrs.shared_name);
  if (!attrs.save_slice_info.empty()) b.attr(save_slice_info_attr, attrs.save_slice_info);
  return b.finalize().out();
}

output assign(const scope& s, const output& ref, const output& value, const assign_attrs& attrs) {
  return node_builder(s, "Assign").input(ref).input(value)
      .attr("validate_shape", attrs.validate_shape).attr("use_locking", attrs.use_locking)
      .finalize().out();
}

output assign_add(const scope& s, const output& ref, const output& value) {
  return node_builder(s, "AssignAdd").input(ref).input(value).finalize().out();
}

output assign_sub(const scope& s, const output& ref, const output& value) {
  return node_builder(s, "AssignSub").input(ref).input(value).finalize().out();
}

output is_variable_initialized(const scope& s, const output& ref) {
  return node_builder(s, "IsVariableInitialized").input(ref).attr("dtype", ref.type).finalize().out();
}

namespace {
output scatter(const char* op, const scope& s, const output& ref, const output& indices,
               const output& updates, const scatter_attrs& attrs, bool default_locking) {
  return node_builder(s, op).input(ref).input(indices).input(updates)
      .attr("use_locking", attrs.use_locking.value_or(default_locking)).finalize().out();
}
}  // namespace

output scatter_update(const scope& s, const output& ref, const output& indices,
                      const output& updates, const scatter_attrs& attrs) {
  return scatter("ScatterUpdate", s, ref, indices, updates, attrs, true);
}
output scatter_add(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs) {
  return scatter("ScatterAdd", s, ref, indices, updates, attrs, false);
}
output scatter_sub(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs) {
  return scatter("ScatterSub", s, ref, indices, updates, attrs, false);
}
output scatter_mul(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs) {
  return scatter("ScatterMul", s, ref, indices, updates, attrs, false);
}
output scatter_div(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs) {
  return scatter("ScatterDiv", s, ref, indices, updates, attrs, false);
}
output scatter_min(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs) {
  return scatter("ScatterMin", s, ref, indices, updates, attrs, false);
}
output scatter_max(const scope& s, const output& ref, const output& indices,
                   const output& updates, const scatter_attrs& attrs) {
  return scatter("ScatterMax", s, ref, indices, updates, attrs, false);
}

}  // namespace ops
}  // namespace caflow
