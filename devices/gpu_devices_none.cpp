// The GPU entry points of a build without CUDA; devices/gpu/ has the real ones.
#ifndef CAFLOW_HAVE_CUDA
#include <cstdio>
#include <mutex>

#include "devices/gpu_devices.hpp"

namespace caflow {

namespace {
constexpr const char* why_no_cuda = "caflow was built without CUDA (configure with -DCAFLOW_CUDA=ON)";

status not_built() { return errors::unimplemented("no GPU: ", why_no_cuda); }
}  // namespace

const gpu_enumeration& local_gpus() {
  static const gpu_enumeration none{{}, why_no_cuda};
  return none;
}

status_or<std::vector<std::unique_ptr<device>>> make_local_gpu_devices(const gpu_options& opts,
                                                                       std::string_view, int) {
  if (!(opts.per_process_gpu_memory_fraction >= 0 && opts.per_process_gpu_memory_fraction <= 1))
    return errors::invalid_argument("per_process_gpu_memory_fraction must be in [0, 1], got ",
                                    opts.per_process_gpu_memory_fraction);
  CAFLOW_RETURN_IF_ERROR(parse_visible_device_list(opts.visible_device_list, 0).get_status());
  static std::once_flag said;
  std::call_once(said, [] { std::fprintf(stderr, "caflow: no GPU (%s): running on CPU\n", why_no_cuda); });
  return std::vector<std::unique_ptr<device>>{};
}

status_or<tensor> copy_to_gpu(device&, const tensor&) { return not_built(); }
status_or<tensor> copy_to_host(device&, const tensor&) { return not_built(); }
status_or<tensor> copy_gpu_to_gpu(device&, device&, const tensor&) { return not_built(); }

}  // namespace caflow
#endif
