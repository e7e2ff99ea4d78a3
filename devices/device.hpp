#pragma once
// A device runs kernels: it owns an allocator, a resource store and the threads (or streams)
// kernels use. Devices know nothing of graphs; executors hand them work.
#include <functional>
#include <memory>
#include <string>

#include "devices/counting_allocator.hpp"
#include "devices/device_graph.hpp"
#include "devices/file_access.hpp"
#include "devices/resource_manager.hpp"
#include "graph/core/variable_home.hpp"
#include "graph/core/tensor.hpp"

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
  // Where an update that cannot write a variable in place puts its fresh bytes: the home's
  // allocator when one is set and has one now, else get_allocator(). An update in place also
  // moves a variable there first (kernels/framework/in_place.hpp), once.
  std::shared_ptr<allocator> variable_allocator() const;
  // Set once, by the device's owner, before any kernel runs (kernels read it unlocked).
  void set_variable_home(std::shared_ptr<const variable_home> home) { home_ = std::move(home); }
  virtual allocator_stats memory_stats() const = 0;
  resource_manager& resources() { return resources_; }
  // Runs `fn` on the device's inter-op threads (graph scheduling), never inline.
  virtual void schedule(std::function<void()> fn) = 0;
  // The Eigen device for intra-op parallelism of CPU kernels; nullptr on other devices.
  virtual const Eigen::ThreadPoolDevice* eigen_cpu() const { return nullptr; }
  virtual int intra_op_threads() const { return 1; }

  // The memory this device's kernels read and write; nullptr when that is host memory (the
  // CPU). Kernels may also declare arguments in host memory (kernel_def_builder::host_memory).
  virtual memory_space* memory() const { return nullptr; }
  // `t` in this device's memory: `t` itself when it is there already, else a copy. A device
  // with its own memory queues the copy in order before its later kernels, without waiting.
  virtual status_or<tensor> copy_in(const tensor& t);

  // Whether steps on this device may be recorded and replayed (devices/device_graph.hpp).
  virtual bool can_capture() const { return false; }
  // Opens a recording of what the calling thread's kernels queue on this device, until the
  // capture's finish(). Devices that cannot record say so.
  virtual status_or<std::unique_ptr<device_capture>> begin_capture();
  // True while the calling thread has a recording of this device open: kernels then must not
  // change host state a replay would not change again (a variable's buffer, say).
  virtual bool is_capturing() const { return false; }
  // Queues a copy of `from` into `to` (one dtype and size, both in this device's memory) in
  // order with the device's kernels.
  virtual status copy_into(const tensor& from, tensor& to);

  // The files this device's kernels may touch (devices/file_access.hpp).
  const file_access& files() const { return files_; }

 protected:
  device(std::string name, std::string type) : name_(std::move(name)), type_(std::move(type)) {}

  file_access files_ = file_access::anywhere();

 private:
  std::string name_, type_;
  resource_manager resources_;
  std::shared_ptr<const variable_home> home_;
};

// `t` in host memory: `t` itself when it is there, else a copy made by its device once the work
// writing it is done.
status_or<tensor> to_host(const tensor& t);

}  // namespace caflow
