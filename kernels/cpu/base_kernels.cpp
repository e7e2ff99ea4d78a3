// Kernels that only move tensor handles: no bytes are copied. They serve every device type
// (any_device): feeds and fetches stay in host memory, and a Const is copied into its device's
// memory once, when its kernel is built.
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

class const_op final : public op_kernel {
 public:
  bool is_capturable() const override { return true; }
  explicit const_op(kernel_construction& c) : op_kernel(c) {
    tensor host;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("value", &host));
    auto on_device = c.dev().copy_in(host);
    CAFLOW_OP_REQUIRES_OK(c, on_device.get_status());
    value_ = std::move(on_device).value();
  }
  void compute(kernel_context& ctx) override { ctx.set_output(0, value_); }

 private:
  tensor value_;
};

class placeholder_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    ctx.set_status(errors::invalid_argument("you must feed a value for placeholder '", name(),
                                            "' of dtype ", dtype_name(ctx.output_type(0))));
  }
};

class identity_op final : public op_kernel {
 public:
  bool is_capturable() const override { return true; }
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override { ctx.set_output(0, ctx.input(0)); }
};

class no_op final : public op_kernel {
 public:
  bool is_capturable() const override { return true; }
  using op_kernel::op_kernel;
  void compute(kernel_context&) override {}
};

class arg_op final : public op_kernel {
 public:
  explicit arg_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("index", &index_));
  }
  void compute(kernel_context& ctx) override {
    call_frame* f = ctx.step().frame;
    CAFLOW_OP_REQUIRES(ctx, f && index_ < static_cast<int64_t>(f->args.size()),
                       errors::internal("no feed #", index_, " in the step's call frame"));
    ctx.set_output(0, f->args[index_]);
  }

 private:
  int64_t index_ = 0;
};

class retval_op final : public op_kernel {
 public:
  explicit retval_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("index", &index_));
  }
  void compute(kernel_context& ctx) override {
    call_frame* f = ctx.step().frame;
    CAFLOW_OP_REQUIRES(ctx, f && index_ < static_cast<int64_t>(f->rets.size()),
                       errors::internal("no fetch #", index_, " in the step's call frame"));
    f->rets[index_] = ctx.input(0);
  }

 private:
  int64_t index_ = 0;
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("Const").device(any_device).passes_strings(), const_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Placeholder").device(any_device).passes_strings(), placeholder_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("PlaceholderWithDefault").device(any_device).passes_strings(), identity_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("Identity").device(any_device).passes_strings(), identity_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("NoOp").device(any_device), no_op);
// Feeds arrive and fetches leave in host memory: the partitioner copies between them and a
// device's own memory where the graph needs it.
CAFLOW_REGISTER_KERNEL(kernel_def_builder("_Arg").device(any_device).passes_strings().host_memory("output"), arg_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("_Retval").device(any_device).passes_strings().host_memory("input"),
                       retval_op);

}  // namespace caflow
