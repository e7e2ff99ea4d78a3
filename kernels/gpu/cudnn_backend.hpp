#pragma once
// Owned descriptors of cuDNN's backend (graph) API and checked access to their attributes.
// Every call's error names the call and the attribute, with cuDNN's status string, so a
// failed engine says what it refused.
#include <cudnn.h>

#include <memory>

#include "graph/core/status.hpp"

namespace caflow::gpu {

namespace cudnn_detail {
struct backend_destroyer {
  void operator()(void* d) const { (void)cudnnBackendDestroyDescriptor(d); }
};
}  // namespace cudnn_detail

// A backend descriptor, destroyed with its owner. Shared, because a plan keeps the graph and
// engine configuration it was made from alive as long as it lives.
class backend_descriptor {
 public:
  backend_descriptor() = default;
  static status_or<backend_descriptor> make(cudnnBackendDescriptorType_t type);
  cudnnBackendDescriptor_t get() const { return d_.get(); }

 private:
  std::shared_ptr<void> d_;
};

// Sets `count` values of `type` (cuDNN checks that they match `name`).
status set_attribute(const backend_descriptor& d, cudnnBackendAttributeName_t name,
                     cudnnBackendAttributeType_t type, int64_t count, const void* values);
// One value, its cuDNN type given.
template <class T>
status set_attribute(const backend_descriptor& d, cudnnBackendAttributeName_t name,
                     cudnnBackendAttributeType_t type, const T& value) {
  return set_attribute(d, name, type, 1, &value);
}
// A reference to another descriptor.
status set_descriptor(const backend_descriptor& d, cudnnBackendAttributeName_t name,
                      const backend_descriptor& value);
status finalize(const backend_descriptor& d);

// Reads up to `capacity` values into `out`; returns how many the attribute holds.
status_or<int64_t> get_attribute(const backend_descriptor& d, cudnnBackendAttributeName_t name,
                                 cudnnBackendAttributeType_t type, int64_t capacity, void* out);
// One int64 attribute (a workspace size, an engine's index).
status_or<int64_t> get_int64(const backend_descriptor& d, cudnnBackendAttributeName_t name);

}  // namespace caflow::gpu
