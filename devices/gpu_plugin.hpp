#pragma once
// The GPU device's code lives in a plugin, libcaflow_gpu.so beside libcaflow, built with CUDA:
// loading the CUDA runtime, cuBLAS(Lt) and cuDNN costs ~150 MB of memory per process (cuBLASLt
// alone maps 60 MB of code and touches 84 MB of zeroed data), which every task of a CPU-only
// cluster would pay for nothing. libcaflow opens the plugin (dlopen) the first time a GPU entry
// point of devices/gpu_devices.hpp is called on a host with NVIDIA device files, or when a tool
// asks for it (load_gpu_support); its kernels register themselves as it loads.
//
// The plugin exports one C function, gpu_plugin_symbol, that returns its entry points. Both sides
// are built together, so the table may carry C++ types.
#include <memory>
#include <string_view>
#include <vector>

#include "devices/gpu_devices.hpp"

namespace caflow {

struct gpu_plugin_api {
  const gpu_enumeration& (*local_gpus)();
  status_or<std::vector<std::unique_ptr<device>>> (*make_local_gpu_devices)(const gpu_options&,
                                                                            std::string_view, int);
  status_or<tensor> (*copy_to_gpu)(device&, const tensor&);
  status_or<tensor> (*copy_to_host)(device&, const tensor&);
  status_or<tensor> (*copy_gpu_to_gpu)(device&, device&, const tensor&);
};

// extern "C" const gpu_plugin_api* caflow_gpu_plugin_v1();
inline constexpr const char* gpu_plugin_symbol = "caflow_gpu_plugin_v1";
inline constexpr const char* gpu_plugin_file = "libcaflow_gpu.so";

}  // namespace caflow
