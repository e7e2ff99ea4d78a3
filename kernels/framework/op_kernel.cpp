#include "kernels/framework/op_kernel.hpp"

#include <future>

namespace caflow {

namespace {

struct owned_definition {
  node_def def;
  node_signature sig;
};

}  // namespace

op_kernel::op_kernel(kernel_construction& c)
    : def_(&c.def()), sig_(&c.sig()), keep_(c.keep()), expensive_(true) {
  if (!keep_) {
    auto own = std::make_shared<const owned_definition>(owned_definition{c.def(), c.sig()});
    def_ = &own->def;
    sig_ = &own->sig;
    keep_ = std::move(own);
  }
  if (const op_def* op = op_registry::global().lookup(def_->op)) expensive_ = !op->is_cheap;
}

void async_op_kernel::compute(kernel_context& ctx) {
  std::promise<void> finished;
  compute_async(ctx, [&] { finished.set_value(); });
  finished.get_future().wait();
}

tensor* kernel_context::allocate_output(int i, const tensor_shape& shape) {
  // A host-memory output of a device with memory of its own (TF's HostMemory) is written by
  // the host, so it lives in host memory.
  const std::shared_ptr<allocator>& chosen =
      output_allocators_ && output_allocators_[i] ? output_allocators_[i]
      : kernel_.output_on_host(i)                 ? default_allocator()
                                                  : dev_.get_allocator();
  auto t = tensor::allocate(chosen, output_type(i), shape);
  if (!t.ok()) {
    set_status(t.get_status());
    return nullptr;
  }
  outputs_[i].value = std::move(t).value();
  return &outputs_[i].value;
}

status_or<tensor> kernel_context::allocate_temp(dtype type, const tensor_shape& shape) {
  return tensor::allocate(dev_.get_allocator(), type, shape);
}

}  // namespace caflow
