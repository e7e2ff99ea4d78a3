#pragma once
// The local GPUs, seen from code that need not know whether caflow was built with CUDA: a
// build without it (CAFLOW_CUDA=OFF, or no toolkit found) has no GPUs and says why.
//
// GPUs are enumerated through the CUDA runtime, so CUDA_VISIBLE_DEVICES decides what is seen
// (unset: all; "" or "-1": none; "0,2": those two, renumbered GPU:0 and GPU:1).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "devices/device.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

// TF's GPUOptions, for every visible GPU of a task.
struct gpu_options {
  // The share of each GPU's total memory the allocator may ever hold, in (0, 1]. 0: all the
  // memory free when the device is made, less a reserve of 5% for the CUDA libraries.
  double per_process_gpu_memory_fraction = 0;
  // Start small and take more regions as needed, instead of the whole limit at once.
  bool allow_growth = false;
  // Which of the GPUs CUDA shows this process the task uses, and in what order: "1,0" makes
  // the second one GPU:0 and the first GPU:1. Empty: all of them. Indices are those after
  // CUDA_VISIBLE_DEVICES, as in TF.
  std::string visible_device_list{};
  // Partitions whose shapes repeat from step to step are recorded once as a CUDA graph and
  // replayed as one launch per step (devices/device_graph.hpp); off: plain launches.
  bool capture_graphs = true;
  // TF's GPUOptions.experimental.virtual_devices: each GPU the task uses appears as one logical
  // GPU per entry, with that many MB of memory and streams of its own, numbered on from the
  // previous GPU's. One physical card then stands for several (towers, tests of multi-GPU
  // code). Empty: one device per GPU, sized by the fraction above.
  std::vector<int64_t> virtual_device_memory_mb{};
};

// TF's virtual device list from a flag: "2x4096" (two of 4096 MB), "4096,2048", or a mix
// ("2x4096,1024"). Errors quote the spec and the part that is wrong.
status_or<std::vector<int64_t>> parse_virtual_devices(std::string_view spec);
// What the API and the flag both refuse: more than 64 devices per GPU, a size <= 0 or over
// 1 TiB.
status check_virtual_devices(const std::vector<int64_t>& memory_mb);
// The flag's form of a list: the inverse of parse_virtual_devices ("" for none).
std::string virtual_devices_flag(const std::vector<int64_t>& memory_mb);
// How many logical devices each physical one gives.
inline int logical_devices_per_gpu(const gpu_options& opts) {
  return opts.virtual_device_memory_mb.empty()
             ? 1
             : static_cast<int>(opts.virtual_device_memory_mb.size());
}

// The indices `list` names among `count` visible GPUs, in its order. Errors quote the list and
// say what is wrong: not a number, out of range, or named twice.
status_or<std::vector<int>> parse_visible_device_list(std::string_view list, int count);

struct local_gpu_info {
  int id = 0;  // after CUDA_VISIBLE_DEVICES renumbering: the k of device:GPU:k
  std::string name;        // "NVIDIA H200"
  std::string pci_bus_id;  // "0000:19:00.0"
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  int64_t total_bytes = 0, free_bytes = 0;
};

struct gpu_enumeration {
  std::vector<local_gpu_info> gpus;
  std::string why_none;  // set when gpus is empty: "caflow was built without CUDA", ...
};

// Enumerated once per process (the CUDA runtime reads CUDA_VISIBLE_DEVICES once, too). The GPU
// code is a plugin (devices/gpu_plugin.hpp), opened here on a host with NVIDIA device files
// (/dev/nvidiactl or /dev/nvidia0); elsewhere why_none says there are none, and nothing of
// CUDA is loaded.
const gpu_enumeration& local_gpus();
// Opens the GPU plugin whether or not a GPU is visible, so that its kernels are registered: for
// tools that list what a CUDA build can run (caflow-ops). Errors: a build without CUDA, or a
// plugin that does not load (dlopen's message).
status load_gpu_support();

// One device per visible GPU, named /job:J/replica:0/task:T/device:GPU:k. With none, an empty
// vector, and the reason goes to stderr once per process ("no GPU (...): running on CPU").
// Errors: a fraction outside [0, 1], or a GPU that cannot be initialized.
status_or<std::vector<std::unique_ptr<device>>> make_local_gpu_devices(const gpu_options& opts,
                                                                       std::string_view job,
                                                                       int task);

// Transfers. `gpu` must be a device made by make_local_gpu_devices. Host tensors are ordinary
// (pageable) tensors; the bytes pass through pinned staging buffers on the GPU's copy stream.
// copy_to_gpu returns without waiting: the GPU's later kernels are ordered after the copy.
status_or<tensor> copy_to_gpu(device& gpu, const tensor& host);
// Waits for the GPU's queued kernels and the copy, then returns the host tensor.
status_or<tensor> copy_to_host(device& gpu, const tensor& on_gpu);
// Between two GPUs of this process: a peer copy where the devices allow it, else staged
// through pinned host memory. On the same GPU, the tensor itself (nothing is copied).
status_or<tensor> copy_gpu_to_gpu(device& dst, device& src, const tensor& on_src);

}  // namespace caflow
