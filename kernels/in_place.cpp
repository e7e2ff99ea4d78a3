#include "kernels/in_place.hpp"

namespace caflow {

bool mutable_in_place(const tensor& value) {
  if (!value.buffer_unique()) return false;
  // Dropping a copy is an acquire-release decrement of the count the last snapshot released.
  if (value.buf()) std::shared_ptr<buffer>{value.buf()}.reset();
  return true;
}

}  // namespace caflow
