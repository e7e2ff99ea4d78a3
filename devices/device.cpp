#include "devices/device.hpp"

namespace caflow {

status_or<tensor> device::copy_in(const tensor& t) { return to_host(t); }

std::shared_ptr<allocator> device::variable_allocator() const {
  if (home_)
    if (auto alloc = home_->variables()) return alloc;
  return get_allocator();
}

status_or<std::unique_ptr<device_capture>> device::begin_capture() {
  return errors::unimplemented("device ", name(), " cannot record its work for replay");
}

status device::copy_into(const tensor&, tensor&) {
  return errors::unimplemented("device ", name(), " has no copies within its memory");
}

status_or<tensor> to_host(const tensor& t) {
  memory_space* space = t.space();
  if (space == nullptr) return t;
  return space->copy_to_host(t);
}

}  // namespace caflow
