#pragma once
// A device runs kernels: it owns an allocator, a resource store and the threads (or streams)
// kernels use. Devices know nothing of graphs; executors hand them work.
#include <functional>
#include <memory>
#include <string>

#include "devices/counting_allocator.hpp"
#include "devices/resource_manager.hpp"

namespace Eigen {
struct ThreadPoolDevice;
}

namespace caflow {

inline constexpr const char* device_cpu = "CPU";
inline constexpr const char* device_gpu = "GPU";

class device {
 public:
  virtual ~device() = default;
  // Full name, e.g. "/job:localhost/replica:0/task:0/device:CPU:0".
  const std::string& name() const { return name_; }
  // "CPU" or "GPU": the key kernels are registered under.
  const std::string& type() const { return type_; }

  virtual const std::shared_ptr<allocator>& get_allocator() const = 0;
  virtual allocator_stats memory_stats() const = 0;
  resource_manager& resources() { return resources_; }
  // Runs `fn` on the device's inter-op threads (graph scheduling), never inline.
  virtual void schedule(std::function<void()> fn) = 0;
  // The Eigen device for intra-op parallelism of CPU kernels; nullptr on other devices.
  virtual const Eigen::ThreadPoolDevice* eigen_cpu() const { return nullptr; }
  virtual int intra_op_threads() const { return 1; }

 protected:
  device(std::string name, std::string type) : name_(std::move(name)), type_(std::move(type)) {}

 private:
  std::string name_, type_;
  resource_manager resources_;
};

}  // namespace caflow
