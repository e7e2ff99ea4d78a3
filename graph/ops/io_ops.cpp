// SaveV2 and RestoreV2: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/ir/tensor_slice.hpp"

namespace caflow {
namespace {

// tensor_names, shape_and_slices and dtypes agree, every slice parses, and no (name, slice)
// appears twice. Fills `slices` with one entry per name ("" for a whole tensor).
status check_names(shape_context& c, std::vector<std::string>& slices) {
  std::vector<std::string> names;
  std::vector<dtype> types;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("tensor_names", &names));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shape_and_slices", &slices));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("dtypes", &types));
  if (names.size() != types.size())
    return c.error("tensor_names has ", static_cast<int64_t>(names.size()), " entries for ",
                   static_cast<int64_t>(types.size()), " tensors");
  if (!slices.empty() && slices.size() != names.size())
    return c.error("shape_and_slices has ", static_cast<int64_t>(slices.size()),
                   " entries for ", static_cast<int64_t>(names.size()), " tensors");
  slices.resize(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    // ':' separates a name from its slice in a checkpoint file's keys.
    if (names[i].empty() || names[i].find(':') != std::string::npos)
      return c.error("tensor name '", names[i], "' is empty or holds ':'");
    if (!slices[i].empty()) {
      auto box = parse_shape_and_slice(slices[i]);
      if (!box.ok()) return c.error("shape_and_slices[", static_cast<int64_t>(i), "] of '",
                                    names[i], "': ", box.get_status().message());
    }
    for (size_t j = 0; j < i; ++j)
      if (names[i] == names[j] && slices[i] == slices[j])
        return c.error("tensor name '", names[i], "' appears twice in tensor_names",
                       slices[i].empty() ? "" : " with slice '" + slices[i] + "'");
  }
  return c.require_rank(0, 1);
}

status save_shape(shape_context& c) {
  std::vector<std::string> slices;
  return check_names(c, slices);
}

// A slice restores as its box's shape; a whole tensor as whatever the checkpoint holds.
status restore_shape(shape_context& c) {
  std::vector<std::string> slices;
  CAFLOW_RETURN_IF_ERROR(check_names(c, slices));
  for (int i = 0; i < c.num_outputs(); ++i) {
    const std::string& slice = slices[static_cast<size_t>(i)];
    c.set_output(i, slice.empty() ? partial_shape::unknown()
                                  : partial_shape(parse_shape_and_slice(slice)->shape()));
  }
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("SaveV2").input("prefix: uint8").input("tensors: dtypes")
    .attr("tensor_names: list(string)").attr("shape_and_slices: list(string) = []")
    .attr("dtypes: list(type) >= 1").stateful().set_shape_fn(save_shape);
CAFLOW_REGISTER_OP("RestoreV2").input("prefix: uint8").output("tensors: dtypes")
    .attr("tensor_names: list(string)").attr("shape_and_slices: list(string) = []")
    .attr("dtypes: list(type) >= 1").stateful().set_shape_fn(restore_shape);

}  // namespace caflow
