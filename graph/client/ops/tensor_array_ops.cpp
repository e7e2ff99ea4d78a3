// The TensorArrayV3 family: client functions (registered in graph/ops/tensor_array_ops.cpp).
#include "graph/client/ops/tensor_array_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {

tensor_array_outputs tensor_array(const scope& s, const output& size, dtype type,
                                  const tensor_array_attrs& attrs) {
  const operation op = node_builder(s, "TensorArrayV3")
                           .input(size)
                           .attr("dtype", type)
                           .attr("element_shape", attrs.element_shape)
                           .attr("dynamic_size", attrs.dynamic_size)
                           .attr("clear_after_read", attrs.clear_after_read)
                           .attr("identical_element_shapes", attrs.identical_element_shapes)
                           .attr("tensor_array_name", attrs.tensor_array_name)
                           .finalize();
  return {op.out(0), op.out(1)};
}

output tensor_array_write(const scope& s, const output& handle, const output& index,
                          const output& value, const output& flow_in) {
  return node_builder(s, "TensorArrayWriteV3").input(handle).input(index).input(value)
      .input(flow_in).finalize().out();
}

output tensor_array_read(const scope& s, const output& handle, const output& index,
                         const output& flow_in, dtype type) {
  return node_builder(s, "TensorArrayReadV3").input(handle).input(index).input(flow_in)
      .attr("dtype", type).finalize().out();
}

output tensor_array_gather(const scope& s, const output& handle, const output& indices,
                           const output& flow_in, dtype type,
                           const partial_shape& element_shape) {
  return node_builder(s, "TensorArrayGatherV3").input(handle).input(indices).input(flow_in)
      .attr("dtype", type).attr("element_shape", element_shape).finalize().out();
}

output tensor_array_scatter(const scope& s, const output& handle, const output& indices,
                            const output& value, const output& flow_in) {
  return node_builder(s, "TensorArrayScatterV3").input(handle).input(indices).input(value)
      .input(flow_in).finalize().out();
}

std::vector<output> tensor_array_concat(const scope& s, const output& handle,
                                        const output& flow_in, dtype type,
                                        const partial_shape& element_shape_except0) {
  const operation op = node_builder(s, "TensorArrayConcatV3").input(handle).input(flow_in)
                           .attr("dtype", type)
                           .attr("element_shape_except0", element_shape_except0).finalize();
  return {op.out(0), op.out(1)};
}

output tensor_array_split(const scope& s, const output& handle, const output& value,
                          const output& lengths, const output& flow_in) {
  return node_builder(s, "TensorArraySplitV3").input(handle).input(value).input(lengths)
      .input(flow_in).finalize().out();
}

output tensor_array_size(const scope& s, const output& handle, const output& flow_in) {
  return node_builder(s, "TensorArraySizeV3").input(handle).input(flow_in).finalize().out();
}

operation tensor_array_close(const scope& s, const output& handle) {
  return node_builder(s, "TensorArrayCloseV3").input(handle).finalize();
}

tensor_array_outputs tensor_array_grad(const scope& s, const output& handle,
                                       const output& flow_in, const std::string& source) {
  const operation op = node_builder(s, "TensorArrayGradV3").input(handle).input(flow_in)
                           .attr("source", source).finalize();
  return {op.out(0), op.out(1)};
}

}  // namespace ops
}  // namespace caflow
