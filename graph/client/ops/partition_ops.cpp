// DynamicPartition and DynamicStitch: client functions, declared in data_flow_ops.hpp
// (registered in graph/ops/partition_ops.cpp).
#include "graph/client/node_builder.hpp"
#include "graph/client/ops/data_flow_ops.hpp"

namespace caflow {
namespace ops {

std::vector<output> dynamic_partition(const scope& s, const output& data, const output& partitions,
                                      int num_partitions) {
  const operation op = node_builder(s, "DynamicPartition")
                           .input(data)
                           .input(partitions)
                           .attr("num_partitions", num_partitions)
                           .finalize();
  // On failure the scope holds the error; the invalid outputs keep indexing safe.
  std::vector<output> parts;
  for (int i = 0; i < num_partitions; ++i) parts.push_back(op.out(i));
  return parts;
}

output dynamic_stitch(const scope& s, const std::vector<output>& indices,
                      const std::vector<output>& data) {
  return node_builder(s, "DynamicStitch").input_list(indices).input_list(data).finalize().out();
}

}  // namespace ops
}  // namespace caflow
