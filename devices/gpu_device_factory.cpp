// The GPU device type: one device per GPU this process sees (devices/gpu_devices.hpp), in CUDA
// builds and in others, which have none and say why.
#include "devices/device_factory.hpp"

namespace caflow {
namespace {

class gpu_device_factory final : public device_factory {
 public:
  std::string type() const override { return device_gpu; }
  int priority() const override { return 210; }
  bool host_memory() const override { return false; }
  int count(const device_options& opts) const override {
    const int seen = static_cast<int>(local_gpus().gpus.size());
    auto chosen = parse_visible_device_list(opts.gpu.visible_device_list, seen);
    return chosen.ok() ? static_cast<int>(chosen->size()) * logical_devices_per_gpu(opts.gpu) : 0;
  }
  status_or<std::vector<std::unique_ptr<device>>> make_devices(const device_options& opts,
                                                               std::string_view job,
                                                               int task) const override {
    // Without GPUs a task quietly has none: caflow-devices and --device gpu say why.
    if (local_gpus().gpus.empty()) return std::vector<std::unique_ptr<device>>{};
    return make_local_gpu_devices(opts.gpu, job, task);
  }
};

CAFLOW_REGISTER_DEVICE_FACTORY(gpu_device_factory);

}  // namespace
}  // namespace caflow
