#include "graph/client/ops/io_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {

operation save_v2(const scope& s, const output& prefix, const std::vector<std::string>& tensor_names,
                  const std::vector<output>& tensors,
                  const std::vector<std::string>& shape_and_slices) {
  return node_builder(s, "SaveV2", "save").input(prefix).input_list(tensors)
      .attr("tensor_names", tensor_names).attr("shape_and_slices", shape_and_slices).finalize();
}

std::vector<output> restore_v2(const scope& s, const output& prefix,
                               const std::vector<std::string>& tensor_names,
                               const std::vector<dtype>& dtypes,
                               const std::vector<std::string>& shape_and_slices) {
  const operation op = node_builder(s, "RestoreV2", "restore").input(prefix)
                           .attr("tensor_names", tensor_names)
                           .attr("shape_and_slices", shape_and_slices).attr("dtypes", dtypes)
                           .finalize();
  std::vector<output> outs;
  for (int i = 0; i < static_cast<int>(dtypes.size()); ++i) outs.push_back(op.out(i));
  return outs;
}

}  // namespace ops
}  // namespace caflow
