// The TensorArrayV3 family on the CPU: thin kernels over kernels/resources/tensor_array.hpp. Elements are
// stored as given (sharing the written tensor's bytes); Scatter and Split store views of rows
// of their value. Each op outputs a fresh float32 scalar flow of 0: only the edge matters.
#include <cstring>

#include "kernels/framework/kernel_registry.hpp"
#include "kernels/resources/tensor_array.hpp"

namespace caflow {
namespace {

tensor flow() { return tensor::scalar<float>(0.0f); }

// The array behind input 0, or an error naming what the handle holds instead.
status_or<std::shared_ptr<tensor_array>> array_of(const kernel_context& ctx) {
  auto ta = ctx.input_resource<tensor_array>(0);
  if (!ta) return errors::invalid_argument("handle does not refer to a TensorArray");
  return ta;
}

status check_scalar(const tensor& t, const char* what) {
  if (t.rank() != 0)
    return errors::invalid_argument(what, " must be a scalar, got shape ", t.shape().to_string());
  return {};
}

status check_vector(const tensor& t, const char* what) {
  if (t.rank() != 1)
    return errors::invalid_argument(what, " must be a vector, got shape ", t.shape().to_string());
  return {};
}

// Row i of `value` ([n, ...]) as a tensor of the remaining dims, sharing its bytes.
tensor row_of(const tensor& value, int64_t begin, int64_t end) {
  return value.slice_dim0(begin, end);
}

tensor_shape without_dim0(const tensor_shape& s) {
  tensor_shape rest = s;
  rest.remove_dim(0);
  return rest;
}

// Stacks `values` (one shape, checked) into [n] + that shape; `empty_shape` is the element
// shape for n == 0.
status_or<tensor> stack(const std::vector<tensor>& values, dtype type,
                        const partial_shape& empty_shape) {
  tensor_shape element;
  if (values.empty()) {
    if (!empty_shape.fully_defined())
      return errors::invalid_argument("cannot gather no elements when the element shape ",
                                      empty_shape.to_string(), " is not fully defined");
    element = empty_shape.to_shape();
  } else {
    element = values[0].shape();
  }
  for (size_t i = 1; i < values.size(); ++i)
    if (values[i].shape() != element)
      return errors::invalid_argument("TensorArray has inconsistent shapes: element 0 has shape ",
                                      element.to_string(), " but element ", i, " has shape ",
                                      values[i].shape().to_string());
  if (element.rank() >= max_rank)
    return errors::invalid_argument("cannot stack elements of shape ", element.to_string());
  tensor_shape shape = element;
  shape.insert_dim(0, static_cast<int64_t>(values.size()));
  tensor out(type, shape);
  char* dst = static_cast<char*>(out.raw_data());
  for (const tensor& v : values) {
    if (v.byte_size() > 0) std::memcpy(dst, v.raw_data(), v.byte_size());
    dst += v.byte_size();
  }
  return out;
}

class tensor_array_op final : public op_kernel {
 public:
  explicit tensor_array_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("dtype", &opts_.type));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("element_shape", &opts_.element_shape));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("dynamic_size", &opts_.dynamic_size));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("clear_after_read", &opts_.clear_after_read));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("identical_element_shapes",
                                        &opts_.identical_element_shapes));
    std::string name;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("tensor_array_name", &name));
    opts_.name = name.empty() ? c.def().name : name;
  }

  void compute(kernel_context& ctx) override {
    const tensor& size = ctx.input(0);
    CAFLOW_OP_REQUIRES_OK(ctx, check_scalar(size, "size"));
    const int32_t n = size.scalar_value<int32_t>();
    CAFLOW_OP_REQUIRES(ctx, n >= 0,
                       errors::invalid_argument("size must be non-negative, got ", n));
    ctx.set_output_resource(0, std::make_shared<tensor_array>(n, opts_));
    ctx.set_output(1, flow());
  }

 private:
  tensor_array_options opts_;
};

class write_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto ta = array_of(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, ta.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, check_scalar(ctx.input(1), "index"));
    CAFLOW_OP_REQUIRES_OK(ctx, (*ta)->write(ctx.input(1).scalar_value<int32_t>(), ctx.input(2)));
    ctx.set_output(0, flow());
  }
};

// The dtype attr must be the array's.
class typed_reader : public op_kernel {
 public:
  explicit typed_reader(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("dtype", &type_));
  }

 protected:
  status check_type(const tensor_array& ta) const {
    if (ta.type() != type_)
      return errors::invalid_argument("TensorArray holds ", dtype_name(ta.type()),
                                      " but the op reads ", dtype_name(type_));
    return {};
  }
  dtype type_ = dtype::invalid;
};

class read_op final : public typed_reader {
 public:
  using typed_reader::typed_reader;
  void compute(kernel_context& ctx) override {
    auto ta = array_of(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, ta.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, check_type(**ta));
    CAFLOW_OP_REQUIRES_OK(ctx, check_scalar(ctx.input(1), "index"));
    auto value = (*ta)->read(ctx.input(1).scalar_value<int32_t>());
    CAFLOW_OP_REQUIRES_OK(ctx, value.get_status());
    ctx.set_output(0, std::move(*value));
  }
};

class gather_op final : public typed_reader {
 public:
  explicit gather_op(kernel_construction& c) : typed_reader(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("element_shape", &element_shape_));
  }
  void compute(kernel_context& ctx) override {
    auto ta = array_of(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, ta.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, check_type(**ta));
    const tensor& indices = ctx.input(1);
    CAFLOW_OP_REQUIRES_OK(ctx, check_vector(indices, "indices"));
    std::vector<tensor> values;
    for (int64_t i = 0; i < indices.num_elements(); ++i) {
      auto v = (*ta)->read(indices.data<int32_t>()[i]);
      CAFLOW_OP_REQUIRES_OK(ctx, v.get_status());
      values.push_back(std::move(*v));
    }
    const partial_shape known = element_shape_.fully_defined() ? element_shape_
                                                               : (*ta)->element_shape();
    auto out = stack(values, type_, known);
    CAFLOW_OP_REQUIRES_OK(ctx, out.get_status());
    ctx.set_output(0, std::move(*out));
  }

 private:
  partial_shape element_shape_;
};

class scatter_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto ta = array_of(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, ta.get_status());
    const tensor& indices = ctx.input(1);
    const tensor& value = ctx.input(2);
    CAFLOW_OP_REQUIRES_OK(ctx, check_vector(indices, "indices"));
    CAFLOW_OP_REQUIRES(ctx, value.rank() >= 1 && value.dim(0) == indices.num_elements(),
                       errors::invalid_argument("value has shape ", value.shape().to_string(),
                                                " but indices has ", indices.num_elements(),
                                                " entries; they must agree on dimension 0"));
    const tensor_shape element = without_dim0(value.shape());
    for (int64_t i = 0; i < indices.num_elements(); ++i)
      CAFLOW_OP_REQUIRES_OK(ctx, (*ta)->write(indices.data<int32_t>()[i],
                                              row_of(value, i, i + 1).reshaped(element)));
    ctx.set_output(0, flow());
  }
};

class concat_op final : public typed_reader {
 public:
  using typed_reader::typed_reader;
  void compute(kernel_context& ctx) override {
    auto ta = array_of(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, ta.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, check_type(**ta));
    auto values = (*ta)->read_all();
    CAFLOW_OP_REQUIRES_OK(ctx, values.get_status());
    tensor lengths(dtype::int64, tensor_shape{static_cast<int64_t>(values->size())});
    int64_t rows = 0;
    tensor_shape rest;
    for (size_t i = 0; i < values->size(); ++i) {
      const tensor& v = (*values)[i];
      CAFLOW_OP_REQUIRES(ctx, v.rank() >= 1,
                         errors::invalid_argument("cannot concatenate element ", i,
                                                  ": it is a scalar"));
      if (i == 0) rest = without_dim0(v.shape());
      CAFLOW_OP_REQUIRES(ctx, without_dim0(v.shape()) == rest,
                         errors::invalid_argument("cannot concatenate element ", i,
                                                  " of shape ", v.shape().to_string(),
                                                  ": the elements before it have dims ",
                                                  rest.to_string(), " after the first"));
      lengths.data<int64_t>()[i] = v.dim(0);
      rows += v.dim(0);
    }
    tensor_shape shape = rest;
    shape.insert_dim(0, rows);
    tensor out(type_, shape);
    char* dst = static_cast<char*>(out.raw_data());
    for (const tensor& v : *values) {
      if (v.byte_size() > 0) std::memcpy(dst, v.raw_data(), v.byte_size());
      dst += v.byte_size();
    }
    ctx.set_output(0, std::move(out));
    ctx.set_output(1, std::move(lengths));
  }
};

class split_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto ta = array_of(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, ta.get_status());
    const tensor& value = ctx.input(1);
    const tensor& lengths = ctx.input(2);
    CAFLOW_OP_REQUIRES_OK(ctx, check_vector(lengths, "lengths"));
    CAFLOW_OP_REQUIRES(ctx, value.rank() >= 1,
                       errors::invalid_argument("value must be at least 1-D, got a scalar"));
    const int64_t n = lengths.num_elements();
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t len = lengths.data<int64_t>()[i];
      CAFLOW_OP_REQUIRES(ctx, len >= 0,
                         errors::invalid_argument("lengths[", i, "] = ", len, " is negative"));
      total += len;
    }
    CAFLOW_OP_REQUIRES(ctx, total == value.dim(0),
                       errors::invalid_argument("lengths sum to ", total, " but value has shape ",
                                                value.shape().to_string()));
    auto size = (*ta)->size();
    CAFLOW_OP_REQUIRES_OK(ctx, size.get_status());
    CAFLOW_OP_REQUIRES(ctx, *size == n || (*ta)->dynamic_size(),
                       errors::invalid_argument("the TensorArray's size ", *size,
                                                " differs from the ", n,
                                                " lengths, and it is not dynamically sized"));
    int64_t begin = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t len = lengths.data<int64_t>()[i];
      CAFLOW_OP_REQUIRES_OK(ctx, (*ta)->write(i, row_of(value, begin, begin + len)));
      begin += len;
    }
    ctx.set_output(0, flow());
  }
};

class size_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto ta = array_of(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, ta.get_status());
    auto size = (*ta)->size();
    CAFLOW_OP_REQUIRES_OK(ctx, size.get_status());
    ctx.set_output(0, tensor::scalar<int32_t>(static_cast<int32_t>(*size)));
  }
};

class close_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto ta = array_of(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, ta.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, (*ta)->close());
  }
};

class grad_op final : public op_kernel {
 public:
  explicit grad_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("source", &source_));
  }
  void compute(kernel_context& ctx) override {
    auto ta = array_of(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, ta.get_status());
    auto g = (*ta)->grad(source_);
    CAFLOW_OP_REQUIRES_OK(ctx, g.get_status());
    ctx.set_output_resource(0, std::move(*g));
    ctx.set_output(1, flow());
  }

 private:
  std::string source_;
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArrayV3").device(device_cpu), tensor_array_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArrayWriteV3").device(device_cpu), write_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArrayReadV3").device(device_cpu), read_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArrayGatherV3").device(device_cpu), gather_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArrayScatterV3").device(device_cpu), scatter_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArrayConcatV3").device(device_cpu), concat_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArraySplitV3").device(device_cpu), split_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArraySizeV3").device(device_cpu), size_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArrayCloseV3").device(device_cpu), close_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TensorArrayGradV3").device(device_cpu), grad_op);

}  // namespace caflow
