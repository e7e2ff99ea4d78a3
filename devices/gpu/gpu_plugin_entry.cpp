// What libcaflow finds in the GPU plugin (devices/gpu_plugin.hpp): its entry points.
#include "devices/gpu/gpu_entry_points.hpp"
#include "devices/gpu_plugin.hpp"

extern "C" __attribute__((visibility("default"))) const caflow::gpu_plugin_api*
caflow_gpu_plugin_v1() {
  static const caflow::gpu_plugin_api api{
      &caflow::cuda::local_gpus, &caflow::cuda::make_local_gpu_devices, &caflow::cuda::copy_to_gpu,
      &caflow::cuda::copy_to_host, &caflow::cuda::copy_gpu_to_gpu};
  return &api;
}
