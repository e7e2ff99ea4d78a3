#pragma once
// Per-device store of state that outlives a step (variables, queues), keyed by container and
// name like TensorFlow's ResourceMgr. Kernels look resources up once, when constructed.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace caflow {

class resource {
 public:
  virtual ~resource() = default;
  virtual std::string debug_string() const = 0;
};

class resource_manager {
 public:
  // Returns the resource under (container, name), creating it with `make()` if absent.
  // REQUIRES: an existing resource under that key has type T.
  template <class T, class Make>
  std::shared_ptr<T> lookup_or_create(const std::string& container, const std::string& name,
                                      Make&& make) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = items_[{container, name}];
    if (!slot) slot = make();
    return std::dynamic_pointer_cast<T>(slot);
  }
  template <class T>
  std::shared_ptr<T> lookup(const std::string& container, const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = items_.find({container, name});
    return it == items_.end() ? nullptr : std::dynamic_pointer_cast<T>(it->second);
  }
  // Removes every resource of a container; those still referenced live on until released.
  void clear(const std::string& container);
  std::vector<std::pair<std::string, std::string>> keys() const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<resource>> items_;
};

}  // namespace caflow
