#pragma once
// The device types a task can have, each made by its registered factory, as TensorFlow's
// DeviceFactory: a new device type means a new factory, not edits to the placer or the worker.
//
//   CAFLOW_REGISTER_DEVICE_FACTORY(my_factory);   // at namespace scope, in the type's own file
//
// The registry is filled during static initialization and read-only afterwards.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "devices/cpu_device.hpp"
#include "devices/device.hpp"
#include "devices/gpu_devices.hpp"
#include "graph/core/status.hpp"

namespace caflow {

// What a task's devices are made from: TF's ConfigProto device settings.
struct device_options {
  cpu_device_options cpu{};
  gpu_options gpu{};
  // TF's device_count: at most this many devices of a type ({"GPU", 0}: none). A type left
  // out gets all it finds. Every task has CPU:0, whatever this says.
  std::map<std::string, int> device_count{};
};

class device_factory {
 public:
  virtual ~device_factory() = default;
  // The key kernels are registered under: "CPU", "GPU".
  virtual std::string type() const = 0;
  // Where a node with kernels for several types goes: the type of highest priority (TF's: GPU
  // 210, CPU 70).
  virtual int priority() const = 0;
  // Whether the devices of this type compute in host memory (the CPU).
  virtual bool host_memory() const = 0;
  // Every device of this type the task has, numbered from 0. Having none is not an error.
  virtual status_or<std::vector<std::unique_ptr<device>>> make_devices(const device_options& opts,
                                                                       std::string_view job,
                                                                       int task) const = 0;
  // How many devices make_devices would give, without making them (cheap).
  virtual int count(const device_options& opts) const = 0;
};

class device_registry {
 public:
  static device_registry& global();
  void add(std::unique_ptr<device_factory> f);
  // nullptr for a type nobody registered.
  const device_factory* find(std::string_view type) const;
  // Placement priority of `type`; 0 for an unknown type.
  int priority(std::string_view type) const;
  // Whether devices of `type` compute in host memory; an unknown type does not.
  bool host_memory(std::string_view type) const;
  // The registered types, highest priority first.
  std::vector<std::string> types() const;

  // Checks options without making devices: device_count names known types with counts >= 0,
  // the GPU memory fraction is in [0, 1], the visible device list names GPUs this process sees.
  status validate(const device_options& opts) const;
  // How many devices of types other than the CPU the options would give, without making them.
  int accelerators_available(const device_options& opts) const;

  // Every device of task `task` of `job`: CPU:0 first, then the other types by priority, each
  // capped by opts.device_count. Errors name the type whose factory failed.
  status_or<std::vector<std::unique_ptr<device>>> make_task_devices(const device_options& opts,
                                                                    std::string_view job,
                                                                    int task) const;

 private:
  std::map<std::string, std::unique_ptr<device_factory>, std::less<>> factories_;
};

struct device_factory_registrar {
  explicit device_factory_registrar(std::unique_ptr<device_factory> f) {
    device_registry::global().add(std::move(f));
  }
};

}  // namespace caflow

#define CAFLOW_REGISTER_DEVICE_FACTORY(factory)                                      \
  static const ::caflow::device_factory_registrar CAFLOW_CONCAT(                    \
      caflow_device_factory_, __COUNTER__)(std::make_unique<factory>())
