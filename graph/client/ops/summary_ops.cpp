// Summary client functions (registered in graph/ops/summary_ops.cpp).
#include "graph/client/ops/summary_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow::ops {

output scalar_summary(const scope& s, const output& tags, const output& values) {
  return node_builder(s, "ScalarSummary").input(tags).input(values).finalize().out();
}

output histogram_summary(const scope& s, const output& tag, const output& values) {
  return node_builder(s, "HistogramSummary").input(tag).input(values).finalize().out();
}

output tensor_summary(const scope& s, const output& tag, const output& tensor,
                      const output& serialized_metadata) {
  return node_builder(s, "TensorSummaryV2").input(tag).input(tensor).input(serialized_metadata)
      .finalize().out();
}

output merge_summary(const scope& s, const std::vector<output>& inputs) {
  return node_builder(s, "MergeSummary").input_list(inputs).finalize().out();
}

}  // namespace caflow::ops
