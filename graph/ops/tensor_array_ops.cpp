// The TensorArrayV3 family: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

const partial_shape scalar_shape{tensor_shape{}};

// The handle (input 0) and every input named in `scalars` are scalars.
status require_scalars(shape_context& c, std::initializer_list<int> scalars) {
  for (int i : scalars) CAFLOW_RETURN_IF_ERROR(c.require_rank(i, 0));
  return {};
}

status tensor_array_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_scalars(c, {0}));
  if (const tensor* size = c.input_value(0); size && size->scalar_value<int32_t>() < 0)
    return c.error("size must be non-negative, got ", size->scalar_value<int32_t>());
  c.set_output(0, scalar_shape);
  c.set_output(1, scalar_shape);
  return {};
}

status write_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_scalars(c, {0, 1, 3}));
  c.set_output(0, scalar_shape);
  return {};
}

status read_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_scalars(c, {0, 1, 2}));
  c.set_output(0, partial_shape::unknown());
  return {};
}

status gather_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_scalars(c, {0, 2}));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  partial_shape element;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("element_shape", &element));
  const int64_t n = c.input(1).rank_known() ? c.input(1).dim(0) : -1;
  if (!element.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  std::vector<int64_t> dims = element.dim_vector();
  dims.insert(dims.begin(), n);
  c.set_output(0, partial_shape(dims));
  return {};
}

status tensor_array_scatter_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_scalars(c, {0, 3}));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(2, 1));
  const partial_shape &idx = c.input(1), &value = c.input(2);
  if (idx.rank_known() && value.rank_known() && idx.dim(0) >= 0 && value.dim(0) >= 0 &&
      idx.dim(0) != value.dim(0))
    return c.error("indices has ", idx.dim(0), " entries but value has shape ",
                   value.to_string(), "; they must agree on dimension 0");
  c.set_output(0, scalar_shape);
  return {};
}

status concat_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_scalars(c, {0, 1}));
  partial_shape rest;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("element_shape_except0", &rest));
  if (rest.rank_known()) {
    std::vector<int64_t> dims = rest.dim_vector();
    dims.insert(dims.begin(), -1);
    c.set_output(0, partial_shape(dims));
  } else {
    c.set_output(0, partial_shape::unknown());
  }
  c.set_output(1, partial_shape{-1});
  return {};
}

status split_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_scalars(c, {0, 3}));
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(1, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 1));
  c.set_output(0, scalar_shape);
  return {};
}

status size_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_scalars(c, {0, 1}));
  c.set_output(0, scalar_shape);
  return {};
}

status close_shape(shape_context& c) { return require_scalars(c, {0}); }

status grad_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(require_scalars(c, {0, 1}));
  c.set_output(0, scalar_shape);
  c.set_output(1, scalar_shape);
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("TensorArrayV3")
    .input("size: int32")
    .output("handle: resource")
    .output("flow: float32")
    .attr("dtype: type")
    .attr("element_shape: shape = unknown")
    .attr("dynamic_size: bool = false")
    .attr("clear_after_read: bool = true")
    .attr("identical_element_shapes: bool = false")
    .attr("tensor_array_name: string = ''")
    .stateful()
    .set_shape_fn(tensor_array_shape);
CAFLOW_REGISTER_OP("TensorArrayWriteV3")
    .input("handle: resource")
    .input("index: int32")
    .input("value: T")
    .input("flow_in: float32")
    .output("flow_out: float32")
    .attr("T: type")
    .stateful()
    .set_shape_fn(write_shape);
CAFLOW_REGISTER_OP("TensorArrayReadV3")
    .input("handle: resource")
    .input("index: int32")
    .input("flow_in: float32")
    .output("value: dtype")
    .attr("dtype: type")
    .stateful()
    .set_shape_fn(read_shape);
CAFLOW_REGISTER_OP("TensorArrayGatherV3")
    .input("handle: resource")
    .input("indices: int32")
    .input("flow_in: float32")
    .output("value: dtype")
    .attr("dtype: type")
    .attr("element_shape: shape = unknown")
    .stateful()
    .set_shape_fn(gather_shape);
CAFLOW_REGISTER_OP("TensorArrayScatterV3")
    .input("handle: resource")
    .input("indices: int32")
    .input("value: T")
    .input("flow_in: float32")
    .output("flow_out: float32")
    .attr("T: type")
    .stateful()
    .set_shape_fn(tensor_array_scatter_shape);
CAFLOW_REGISTER_OP("TensorArrayConcatV3")
    .input("handle: resource")
    .input("flow_in: float32")
    .output("value: dtype")
    .output("lengths: int64")
    .attr("dtype: type")
    .attr("element_shape_except0: shape = unknown")
    .stateful()
    .set_shape_fn(concat_shape);
CAFLOW_REGISTER_OP("TensorArraySplitV3")
    .input("handle: resource")
    .input("value: T")
    .input("lengths: int64")
    .input("flow_in: float32")
    .output("flow_out: float32")
    .attr("T: type")
    .stateful()
    .set_shape_fn(split_shape);
CAFLOW_REGISTER_OP("TensorArraySizeV3")
    .input("handle: resource")
    .input("flow_in: float32")
    .output("size: int32")
    .stateful()
    .set_shape_fn(size_shape);
CAFLOW_REGISTER_OP("TensorArrayCloseV3")
    .input("handle: resource")
    .stateful()
    .set_shape_fn(close_shape);
CAFLOW_REGISTER_OP("TensorArrayGradV3")
    .input("handle: resource")
    .input("flow_in: float32")
    .output("grad_handle: resource")
    .output("flow_out: float32")
    .attr("source: string")
    .stateful()
    .set_shape_fn(grad_shape);

}  // namespace caflow
