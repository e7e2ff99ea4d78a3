#include "kernels/resources/variable.hpp"

namespace caflow {

std::string variable::debug_string() const {
  std::lock_guard<std::mutex> lock(mu_);
  return value_.initialized() ? value_.debug_string() : std::string("<uninitialized variable>");
}

bool variable::initialized() const {
  std::lock_guard<std::mutex> lock(mu_);
  return value_.initialized();
}

tensor variable::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return value_;
}

void variable::assign(tensor value) {
  std::lock_guard<std::mutex> lock(mu_);
  value_ = std::move(value);
}

}  // namespace caflow
