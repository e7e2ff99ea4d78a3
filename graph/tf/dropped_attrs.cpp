#include "graph/tf/dropped_attrs.hpp"

#include <algorithm>

namespace caflow::tf {
namespace {

// An attr added by a newer TensorFlow; `ops` empty: on any op.
struct default_row {
  std::string_view attr;
  std::vector<std::string_view> ops;
  std::vector<attr_value> defaults;  // the values that mean caflow's behaviour
};

const std::vector<default_row>& default_rows() {
  static const std::vector<default_row> rows = {
      {"explicit_paddings", {}, {attr_value(std::vector<int64_t>{})}},
      {"grad_a", {"MatMul"}, {attr_value(false)}},
      {"grad_b", {"MatMul"}, {attr_value(false)}},
      {"grad_x", {"BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"}, {attr_value(false)}},
      {"grad_y", {"BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"}, {attr_value(false)}},
      {"Truncate", {"Cast"}, {attr_value(false)}},
      {"exponential_avg_factor", {}, {attr_value(1.0f)}},
      {"use_cudnn_on_gpu", {}, {attr_value(true)}},
      {"dilations", {},
       {attr_value(std::vector<int64_t>{1, 1, 1, 1}),
        attr_value(std::vector<int64_t>{1, 1, 1, 1, 1})}},
      {"data_format", {}, {attr_value("NHWC"), attr_value("NDHWC")}},
  };
  return rows;
}

// Type attrs whose value caflow reads off the edges instead.
constexpr std::string_view inferred_type_attrs[] = {
    "T", "Tidx", "Tshape", "Index", "index_type", "Tpaddings", "Tmultiples", "Taxis",
    "Tindices", "Tparams", "Tdim", "Tperm", "Tlen", "Tblock_shape", "Tcrops", "Tnumsegments",
    "Tsplits", "Tseed", "TI", "Tidx_out", "Targmax", "out_idx", "Tcond"};

constexpr std::string_view dropped_annotations[] = {
    "_output_shapes",  "_XlaCompile",  "_XlaScope", "_XlaSeparateCompiledGradients",
    "_XlaMustCompile", "_kernel",      "_noinline", "_input_shapes",
    "_user_specified_name", "_has_manual_control_dependencies", "_acd_function_control_output",
    "_read_only_resource_inputs", "_disable_call_shape_inference", "_tpu_replicate"};

}  // namespace

drop_rule rule_for_undeclared(std::string_view op, std::string_view attr) {
  if (attr.starts_with('_')) {
    const bool dropped =
        attr.starts_with("_grappler") ||
        std::find(std::begin(dropped_annotations), std::end(dropped_annotations), attr) !=
            std::end(dropped_annotations);
    return {dropped ? drop_verdict::drop : drop_verdict::keep, {}};
  }
  for (const auto& row : default_rows()) {
    if (row.attr != attr) continue;
    if (!row.ops.empty() && std::find(row.ops.begin(), row.ops.end(), op) == row.ops.end())
      continue;
    return {drop_verdict::drop_if_default, row.defaults};
  }
  if (std::find(std::begin(inferred_type_attrs), std::end(inferred_type_attrs), attr) !=
      std::end(inferred_type_attrs))
    return {drop_verdict::drop_if_type, {}};
  return {drop_verdict::unknown, {}};
}

}  // namespace caflow::tf
