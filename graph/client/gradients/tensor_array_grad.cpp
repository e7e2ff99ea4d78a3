// Gradients of the TensorArrayV3 family (graph/client/ops/tensor_array_ops.hpp), as
// TensorFlow's tensor_array_grad.py defines them. The gradient of an array's elements lives in
// its gradient array (TensorArrayGradV3), one per gradient computation: what a forward op read
// from the array, its gradient writes to the gradient array, and what it wrote, its gradient
// reads back. Flows order these like the forward ops: the gradient reaching a forward op's flow
// output is the flow its gradient ops start from, and the flow their last op produces is the
// gradient of the forward op's flow input.
#include "graph/client/gradients/gradients.hpp"
#include "graph/client/ops/tensor_array_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

// The gradient computation a gradient op belongs to: its name up to the first component
// starting with "gradients" (TF's _GetGradSource), so that two gradient computations over one
// array get two gradient arrays.
std::string grad_source(const scope& s) {
  const std::string name = s.unique_name("grad_source");
  size_t begin = 0;
  while (begin < name.size()) {
    size_t end = name.find('/', begin);
    if (end == std::string::npos) end = name.size();
    if (name.compare(begin, 9, "gradients") == 0) return name.substr(0, end);
    begin = end + 1;
  }
  return "gradients";
}

ops::tensor_array_outputs grad_array(const scope& s, const grad_op_info& op,
                                     const output& flow) {
  return ops::tensor_array_grad(s, op.inputs[0], flow, grad_source(s));
}

status element_type(const grad_op_info& op, const char* attr, dtype* type) {
  return op.get_attr(attr, type);
}

// value = Read(handle, index, flow): write dvalue at index of the gradient array.
status read_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const auto g = grad_array(s, op, op.inputs[2]);
  const output flow = ops::tensor_array_write(s, g.handle, op.inputs[1], dy[0], g.flow);
  *dx = {output{}, output{}, flow};
  return {};
}

// flow_out = Write(handle, index, value, flow_in): dvalue is the gradient array at index.
status write_grad(const scope& s, const grad_op_info& op, const grad_list& dflow,
                  grad_list* dx) {
  dtype type = dtype::invalid;
  CAFLOW_RETURN_IF_ERROR(element_type(op, "T", &type));
  const auto g = grad_array(s, op, dflow[0]);
  const output value = ops::tensor_array_read(s, g.handle, op.inputs[1], g.flow, type);
  *dx = {output{}, output{}, value, dflow[0]};
  return {};
}

status gather_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const auto g = grad_array(s, op, op.inputs[2]);
  const output flow = ops::tensor_array_scatter(s, g.handle, op.inputs[1], dy[0], g.flow);
  *dx = {output{}, output{}, flow};
  return {};
}

status scatter_grad(const scope& s, const grad_op_info& op, const grad_list& dflow,
                    grad_list* dx) {
  dtype type = dtype::invalid;
  CAFLOW_RETURN_IF_ERROR(element_type(op, "T", &type));
  const auto g = grad_array(s, op, dflow[0]);
  const output value = ops::tensor_array_gather(s, g.handle, op.inputs[1], g.flow, type);
  *dx = {output{}, output{}, value, dflow[0]};
  return {};
}

// {value, lengths} = Concat(handle, flow): split dvalue back by the lengths.
status concat_grad(const scope& s, const grad_op_info& op, const grad_list& dy, grad_list* dx) {
  const auto g = grad_array(s, op, op.inputs[1]);
  const output flow = ops::tensor_array_split(s, g.handle, dy[0], op.outputs[1], g.flow);
  *dx = {output{}, flow};
  return {};
}

// flow_out = Split(handle, value, lengths, flow_in): dvalue is the gradient array joined.
status split_grad(const scope& s, const grad_op_info& op, const grad_list& dflow,
                  grad_list* dx) {
  dtype type = dtype::invalid;
  CAFLOW_RETURN_IF_ERROR(element_type(op, "T", &type));
  const auto g = grad_array(s, op, dflow[0]);
  const output value = ops::tensor_array_concat(s, g.handle, g.flow, type)[0];
  *dx = {output{}, value, output{}, dflow[0]};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("TensorArrayReadV3", read_grad);
CAFLOW_REGISTER_GRADIENT("TensorArrayWriteV3", write_grad);
CAFLOW_REGISTER_GRADIENT("TensorArrayGatherV3", gather_grad);
CAFLOW_REGISTER_GRADIENT("TensorArrayScatterV3", scatter_grad);
CAFLOW_REGISTER_GRADIENT("TensorArrayConcatV3", concat_grad);
CAFLOW_REGISTER_GRADIENT("TensorArraySplitV3", split_grad);
CAFLOW_REGISTER_NO_GRADIENT("TensorArrayV3");
CAFLOW_REGISTER_NO_GRADIENT("TensorArrayGradV3");
CAFLOW_REGISTER_NO_GRADIENT("TensorArraySizeV3");
CAFLOW_REGISTER_NO_GRADIENT("TensorArrayCloseV3");

}  // namespace caflow
