// Variable kernels. The variable lives in the device's resource manager under (container,
// shared_name or node name), looked up once when the kernel is built. Updates never mutate
// bytes a reader still holds: in-place only when the variable owns its buffer alone.
#include "graph/core/tensor_views.hpp"
#include "kernels/framework/in_place.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

// A shard's "_save_slice_info" {full name, shape_and_slice}, checked: none when absent.
status partition_of(const node_def& def, std::optional<variable_partition>& out) {
  const auto it = def.attrs.find(save_slice_info_attr);
  if (it == def.attrs.end()) return {};
  const auto* fields = it->second.holds<std::vector<std::string>>()
                           ? &it->second.get<std::vector<std::string>>()
                           : nullptr;
  if (!fields || fields->size() != 2 || fields->at(0).empty())
    return errors::invalid_argument("attr ", save_slice_info_attr, " must be {full name, ",
                                    "shape_and_slice}, got ", it->second.to_string());
  CAFLOW_ASSIGN_OR_RETURN(tensor_slice slice, parse_shape_and_slice(fields->at(1)));
  out = variable_partition{fields->at(0), std::move(slice)};
  return {};
}

class variable_op final : public op_kernel {
 public:
  explicit variable_op(kernel_construction& c) : op_kernel(c) {
    std::string container, shared_name;
    partial_shape shape;
    dtype type;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("container", &container));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shared_name", &shared_name));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shape", &shape));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("dtype", &type));
    std::optional<variable_partition> partition;
    CAFLOW_OP_REQUIRES_OK(c, partition_of(c.def(), partition));
    const std::string& key = shared_name.empty() ? c.def().name : shared_name;
    var_ = c.dev().resources().lookup_or_create<variable>(container, key, [&] {
      return std::make_shared<variable>(key, type, shape, std::move(partition));
    });
    CAFLOW_OP_REQUIRES(c, var_ && var_->type() == type,
                       errors::invalid_argument("a variable named '", key,
                                                "' already exists with another dtype"));
  }
  void compute(kernel_context& ctx) override { ctx.set_output_ref(0, var_); }

 private:
  std::shared_ptr<variable> var_;
};

// The value copied into the variable's own buffer, queued on the device: what a recording
// of the device's work can hold, since the variable keeps its buffer.
status assign_in_place(device& dev, variable& var, const tensor& value) {
  return var.update([&](tensor& current) -> status {
    if (!current.initialized() || current.type() != value.type() ||
        current.shape() != value.shape() || !mutable_in_place(current))
      return errors::failed_precondition(
          "variable '", var.name(), "' cannot take the value of shape ", value.shape().to_string(),
          " in its own buffer, so its assignment cannot be recorded");
    return dev.copy_into(value, current);
  });
}

class assign_op final : public op_kernel {
 public:
  explicit assign_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("validate_shape", &validate_shape_));
  }
  void compute(kernel_context& ctx) override {
    const auto& var = ctx.input_ref(0);
    const tensor& value = ctx.input(1);
    if (validate_shape_) {
      CAFLOW_OP_REQUIRES(ctx, var->declared_shape().compatible_with(value.shape()),
                         errors::invalid_argument("cannot assign a value of shape ",
                                                  value.shape().to_string(), " to variable '",
                                                  var->name(), "' of shape ",
                                                  var->declared_shape().to_string()));
    }
    if (ctx.dev().is_capturing()) {
      CAFLOW_OP_REQUIRES_OK(ctx, assign_in_place(ctx.dev(), *var, value));
    } else {
      // The value is shared, not copied: a later in-place update copies first (see update_op).
      var->assign(value);
    }
    ctx.set_output_ref(0, var);
  }
  // Recorded, an assignment copies into the variable's buffer, which a replay then writes again
  // (TF's Assign also copies when it may reuse the buffer).
  bool is_capturable() const override { return true; }

 private:
  bool validate_shape_ = true;
};

template <class T, bool subtract>
class update_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const auto& var = ctx.input_ref(0);
    const tensor& delta = ctx.input(1);
    status st = var->update_initialized([&](tensor& value) -> status {
      if (value.shape() != delta.shape())
        return errors::invalid_argument("update of shape ", delta.shape().to_string(),
                                        " does not match variable '", var->name(),
                                        "' of shape ", value.shape().to_string());
      // Readers may hold the current buffer: write into a fresh one then.
      make_updatable(value, ctx.dev());
      T* v = value.data<T>();
      const T* d = delta.data<T>();
      const int64_t n = value.num_elements();
      for (int64_t i = 0; i < n; ++i) v[i] = subtract ? v[i] - d[i] : v[i] + d[i];
      return {};
    });
    CAFLOW_OP_REQUIRES_OK(ctx, st);
    ctx.set_output_ref(0, var);
  }
};

template <class T>
using assign_add_op = update_op<T, false>;
template <class T>
using assign_sub_op = update_op<T, true>;

class is_initialized_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    tensor* out = ctx.allocate_output(0, tensor_shape{});
    if (out) *out->data<bool>() = ctx.input_ref(0)->initialized();
  }
};

}  // namespace

// A variable and Assign hold and swap tensor handles only, so they serve every device type: a
// variable lives in its device's memory, next to the kernels that update it (ApplyAdam on a
// GPU), as in TF. The element-wise updates below are the CPU's.
CAFLOW_REGISTER_KERNEL(kernel_def_builder("VariableV2").device(any_device), variable_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Assign").device(any_device), assign_op);
CAFLOW_REGISTER_TYPED_KERNELS("AssignAdd", device_cpu, "T", assign_add_op, float, double, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("AssignSub", device_cpu, "T", assign_sub_op, float, double, int32_t,
                              int64_t);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("IsVariableInitialized")
                           .device(any_device)
                           .host_memory("is_initialized"),
                       is_initialized_op);

}  // namespace caflow
