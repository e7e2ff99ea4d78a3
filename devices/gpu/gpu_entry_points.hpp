#pragma once
// The GPU plugin's own entry points (devices/gpu_plugin.hpp): devices/gpu_devices.hpp's
// functions as the plugin implements them with the CUDA runtime. libcaflow's functions of the
// same names forward here once the plugin is open; code inside the plugin calls these directly.
#include <memory>
#include <string_view>
#include <vector>

#include "devices/gpu_devices.hpp"

namespace caflow::cuda {

const gpu_enumeration& local_gpus();
status_or<std::vector<std::unique_ptr<device>>> make_local_gpu_devices(const gpu_options& opts,
                                                                       std::string_view job,
                                                                       int task);
status_or<tensor> copy_to_gpu(device& gpu, const tensor& host);
status_or<tensor> copy_to_host(device& gpu, const tensor& on_gpu);
status_or<tensor> copy_gpu_to_gpu(device& dst, device& src, const tensor& on_src);

}  // namespace caflow::cuda
