#include "devices/device.hpp"

namespace caflow {

status_or<tensor> device::copy_in(const tensor& t) { return to_host(t); }

status_or<tensor> to_host(const tensor& t) {
  memory_space* space = t.space();
  if (space == nullptr) return t;
  return space->copy_to_host(t);
}

}  // namespace caflow
