// SaveV2 and RestoreV2 on the CPU: one checkpoint file per op, through checkpoint_file. They
// block on disk I/O (SaveV2 waits for fsync), so they are never cheap and run on the
// device's inter-op pool.
#include <algorithm>

#include "graph/ir/checkpoint_file.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

// The attrs both ops share, read and checked once per node.
struct io_attrs {
  std::vector<std::string> names;
  std::vector<dtype> types;
};

status read_io_attrs(kernel_construction& c, io_attrs& a) {
  std::vector<std::string> slices;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("tensor_names", &a.names));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("shape_and_slices", &slices));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("dtypes", &a.types));
  if (a.names.size() != a.types.size())
    return errors::invalid_argument("tensor_names has ", static_cast<int64_t>(a.names.size()),
                                    " entries for ", static_cast<int64_t>(a.types.size()),
                                    " tensors");
  for (const auto& slice : slices)
    if (!slice.empty())
      return errors::unimplemented("shape_and_slices entry '", slice,
                                   "': partial slices are not supported");
  return {};
}

status_or<std::string> prefix_path(const kernel_context& ctx) {
  const tensor& prefix = ctx.input(0);
  if (prefix.rank() != 1)
    return errors::invalid_argument("prefix must be a vector of the path's bytes, got shape ",
                                    prefix.shape().to_string());
  if (prefix.num_elements() == 0) return errors::invalid_argument("prefix is an empty path");
  std::string path = checkpoint::path_of(prefix);
  if (path.find('\0') != std::string::npos)
    return errors::invalid_argument("prefix holds a NUL byte");
  return path;
}

class save_v2_op final : public op_kernel {
 public:
  explicit save_v2_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_io_attrs(c, attrs_));
  }
  void compute(kernel_context& ctx) override {
    auto path = prefix_path(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, path.get_status());
    std::vector<named_tensor> tensors;
    tensors.reserve(attrs_.names.size());
    for (size_t i = 0; i < attrs_.names.size(); ++i) {
      const tensor& t = ctx.input(static_cast<int>(i) + 1);
      CAFLOW_OP_REQUIRES(ctx, t.initialized(),
                         errors::failed_precondition("tensor '", attrs_.names[i],
                                                     "' to save has no value"));
      tensors.emplace_back(attrs_.names[i], t);
    }
    ctx.set_status(checkpoint::write_tensors(*path, tensors));
  }

 private:
  io_attrs attrs_;
};

class restore_v2_op final : public op_kernel {
 public:
  explicit restore_v2_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_io_attrs(c, attrs_));
  }
  void compute(kernel_context& ctx) override {
    auto path = prefix_path(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, path.get_status());
    auto stored = checkpoint::read_tensors(*path);
    CAFLOW_OP_REQUIRES_OK(ctx, stored.get_status());
    for (size_t i = 0; i < attrs_.names.size(); ++i) {
      const std::string& name = attrs_.names[i];
      const auto found = std::find_if(stored->begin(), stored->end(),
                                      [&](const named_tensor& nt) { return nt.first == name; });
      CAFLOW_OP_REQUIRES(ctx, found != stored->end(),
                         errors::not_found("checkpoint file '", *path, "' has no tensor named '",
                                           name, "'"));
      CAFLOW_OP_REQUIRES(ctx, found->second.type() == attrs_.types[i],
                         errors::invalid_argument(
                             "checkpoint file '", *path, "' holds '", name, "' as ",
                             dtype_name(found->second.type()), found->second.shape().to_string(),
                             ", expected ", dtype_name(attrs_.types[i])));
      ctx.set_output(static_cast<int>(i), std::move(found->second));
    }
  }

 private:
  io_attrs attrs_;
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("SaveV2").device(device_cpu), save_v2_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("RestoreV2").device(device_cpu), restore_v2_op);

}  // namespace caflow
