#include "kernels/framework/in_place.hpp"

namespace caflow {

bool mutable_in_place(const tensor& value) {
  if (!value.buffer_unique()) return false;
  if (!value.buf()) return true;
  // Dropping a copy is an acquire-release decrement of the count the last snapshot released.
  std::shared_ptr<buffer>{value.buf()}.reset();
  return value.buf()->owner().writable_in_place(value.buf()->data());
}

bool update_in_place(const tensor& value, const device& dev) {
  if (!mutable_in_place(value)) return false;
  if (!value.buf()) return true;
  const std::shared_ptr<allocator> home = dev.variable_allocator();
  return home == dev.get_allocator() || &value.buf()->owner() == home.get();
}

void make_updatable(tensor& value, const device& dev) {
  if (!update_in_place(value, dev)) value = value.deep_copy(dev.variable_allocator());
}

}  // namespace caflow
