// ShapeN and ConcatOffset: client functions (registered in graph/ops/shape_list_ops.cpp).
#include "graph/client/ops/shape_list_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {

std::vector<output> shape_n(const scope& s, const std::vector<output>& inputs, dtype out_type) {
  const operation op =
      node_builder(s, "ShapeN").input_list(inputs).attr("out_type", out_type).finalize();
  std::vector<output> outs;
  for (size_t i = 0; i < inputs.size(); ++i) outs.push_back(op.out(static_cast<int>(i)));
  return outs;
}

std::vector<output> concat_offset(const scope& s, const output& concat_dim,
                                  const std::vector<output>& shapes) {
  const operation op = node_builder(s, "ConcatOffset").input(concat_dim).input_list(shapes)
                           .finalize();
  std::vector<output> outs;
  for (size_t i = 0; i < shapes.size(); ++i) outs.push_back(op.out(static_cast<int>(i)));
  return outs;
}

}  // namespace ops
}  // namespace caflow
