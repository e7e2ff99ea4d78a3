// Kernels of the loop-history ops (graph/ops/loop_history_ops.cpp). They move tensor
// handles, so they serve every device and dtype.
#include <map>
#include <mutex>

#include "devices/resource_manager.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

class loop_history final : public resource {
 public:
  explicit loop_history(std::string name) : name_(std::move(name)) {}
  status push(int64_t index, tensor value) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!values_.emplace(index, std::move(value)).second)
      return errors::internal("loop history '", name_, "' already holds iteration ", index);
    return {};
  }
  status_or<tensor> pop(int64_t index) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = values_.find(index);
    if (it == values_.end())
      return errors::internal("loop history '", name_, "' holds no value of iteration ", index,
                              " (", values_.size(), " held)");
    tensor t = std::move(it->second);
    values_.erase(it);
    return t;
  }
  std::string debug_string() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return "loop history '" + name_ + "' holding " + std::to_string(values_.size()) + " values";
  }

 private:
  std::string name_;
  mutable std::mutex mu_;
  std::map<int64_t, tensor> values_;
};

class loop_history_op final : public op_kernel {
 public:
  explicit loop_history_op(kernel_construction& c) : op_kernel(c) {}
  void compute(kernel_context& ctx) override {
    ctx.set_output_resource(0, std::make_shared<loop_history>(name()));
  }
};

std::shared_ptr<loop_history> history_of(kernel_context& ctx) {
  auto h = ctx.input_resource<loop_history>(0);
  if (!h) ctx.set_status(errors::invalid_argument("input 0 is not a loop history"));
  return h;
}

class push_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto h = history_of(ctx);
    if (!h) return;
    CAFLOW_OP_REQUIRES_OK(ctx, h->push(ctx.input(1).scalar_value<int64_t>(), ctx.input(2)));
    ctx.set_output(0, ctx.input(2));
  }
};

class pop_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto h = history_of(ctx);
    if (!h) return;
    auto value = h->pop(ctx.input(1).scalar_value<int64_t>());
    CAFLOW_OP_REQUIRES_OK(ctx, value.get_status());
    ctx.set_output(0, std::move(value).value());
  }
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("_LoopHistory").device(any_device), loop_history_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("_LoopHistoryPush").device(any_device).host_memory("index"),
                       push_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("_LoopHistoryPop").device(any_device).host_memory("index"),
                       pop_op);

}  // namespace caflow
