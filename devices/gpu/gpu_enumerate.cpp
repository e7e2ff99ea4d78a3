// GPU enumeration and device creation through the CUDA runtime.
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "devices/gpu/cuda_status.hpp"
#include "devices/gpu/gpu_device.hpp"
#include "devices/gpu/gpu_entry_points.hpp"
#include "graph/core/device_name.hpp"

namespace caflow {

namespace {

std::string visible_devices_note() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!v) return "";
  return errors::concat("; CUDA_VISIBLE_DEVICES='", v, "'");
}

gpu_enumeration enumerate() {
  gpu_enumeration out;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    out.why_none = errors::concat("the CUDA runtime found no usable GPU: ", cudaGetErrorName(e), " (",
                                  cudaGetErrorString(e), ")", visible_devices_note());
    return out;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    local_gpu_info g;
    g.id = i;
    g.name = prop.name;
    g.compute_major = prop.major;
    g.compute_minor = prop.minor;
    g.multiprocessors = prop.multiProcessorCount;
    g.total_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), i) == cudaSuccess) g.pci_bus_id = bus;
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
      g.free_bytes = static_cast<int64_t>(free_b);
    } else {
      (void)cudaGetLastError();
      g.free_bytes = g.total_bytes;
    }
    out.gpus.push_back(std::move(g));
  }
  if (out.gpus.empty())
    out.why_none = errors::concat("the CUDA runtime sees no GPU", visible_devices_note());
  return out;
}

}  // namespace

namespace cuda {

const gpu_enumeration& local_gpus() {
  static const gpu_enumeration gpus = enumerate();
  return gpus;
}

status_or<std::vector<std::unique_ptr<device>>> make_local_gpu_devices(const gpu_options& opts,
                                                                       std::string_view job,
                                                                       int task) {
  const double fraction = opts.per_process_gpu_memory_fraction;
  if (!(fraction >= 0 && fraction <= 1))
    return errors::invalid_argument("per_process_gpu_memory_fraction must be in [0, 1], got ",
                                    fraction);
  std::vector<std::unique_ptr<device>> out;
  const gpu_enumeration& found = local_gpus();
  CAFLOW_ASSIGN_OR_RETURN(std::vector<int> chosen,
                          parse_visible_device_list(opts.visible_device_list,
                                                    static_cast<int>(found.gpus.size())));
  if (found.gpus.empty()) {
    static std::once_flag said;
    std::call_once(said, [&] {
      std::fprintf(stderr, "caflow: no GPU (%s): running on CPU\n", found.why_none.c_str());
    });
    return out;
  }
  const std::vector<int64_t>& virtual_mb = opts.virtual_device_memory_mb;
  int next = 0;  // GPU:<next>, counted over the logical devices of every chosen GPU
  for (size_t k = 0; k < chosen.size(); ++k) {
    const local_gpu_info& g = found.gpus[static_cast<size_t>(chosen[k])];
    // What is free now: other tasks of this process (an embedded cluster) may hold some.
    int64_t free_now = g.free_bytes;
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(g.id) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
      free_now = static_cast<int64_t>(free_b);
    else
      (void)cudaGetLastError();
    // A share of the total, but never more than is free: other processes hold the rest.
    const int64_t wanted = fraction > 0 ? static_cast<int64_t>(fraction * static_cast<double>(g.total_bytes))
                                        : free_now - free_now / 20;
    const int64_t limit = std::min(wanted, free_now);
    if (limit <= 0)
      return errors::resource_exhausted("GPU:", g.id, " has no memory to give: ", free_now,
                                        " bytes free, per_process_gpu_memory_fraction ", fraction);
    // Virtual devices split the card: each its own pool of the size asked for, and its own
    // streams. Together they must fit in what the card can give.
    std::vector<int64_t> limits{limit};
    if (!virtual_mb.empty()) {
      limits.clear();
      int64_t sum = 0;
      for (int64_t mb : virtual_mb) {
        limits.push_back(mb << 20);
        sum += mb << 20;
      }
      if (sum > limit)
        return errors::resource_exhausted(
            "virtual devices ", virtual_devices_flag(virtual_mb), " ask GPU:", g.id, " for ",
            sum >> 20, " MB, but it can give ", limit >> 20, " MB");
    }
    for (int64_t bytes : limits) {
      status st;
      const int index = next++;
      auto dev = std::make_unique<gpu_device>(
          full_device_name(job, task, device_gpu, index),
          gpu_device_options{.cuda_id = g.id, .memory_limit_bytes = bytes,
                             .allow_growth = opts.allow_growth, .capture_graphs = opts.capture_graphs},
          &st);
      if (!st.ok()) return st.with_context("GPU:" + std::to_string(index));
      out.push_back(std::move(dev));
    }
  }
  return out;
}

}  // namespace cuda
}  // namespace caflow
