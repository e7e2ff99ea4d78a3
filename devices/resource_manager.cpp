#include "devices/resource_manager.hpp"

namespace caflow {

void resource_manager::clear(const std::string& container) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = items_.begin(); it != items_.end();)
    it = it->first.first == container ? items_.erase(it) : std::next(it);
}

std::vector<std::pair<std::string, std::string>> resource_manager::keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : items_) out.push_back(k);
  return out;
}

}  // namespace caflow
