// caflow-devices: the devices this machine gives a caflow task, like `nvidia-smi -L`.
//
//   $ caflow-devices
//   CPU 0: 16 threads, 125.7 GiB memory (/job:localhost/replica:0/task:0/device:CPU:0)
//   GPU 0: NVIDIA H200, 139.8 GiB memory, 139.2 GiB free, compute 9.0, 132 SMs, PCI 0000:19:00.0 (/job:localhost/replica:0/task:0/device:GPU:0)
//
// With no GPU the CPU line is followed by one line saying why (CUDA_VISIBLE_DEVICES hides them
// all, no driver, a build without CUDA, ...).
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "devices/gpu_devices.hpp"
#include "graph/core/device_name.hpp"

namespace {

double gib(int64_t bytes) { return static_cast<double>(bytes) / static_cast<double>(int64_t{1} << 30); }

}  // namespace

int main() {
  using namespace caflow;
  const std::string job = "localhost";
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const int64_t host_bytes = pages > 0 && page > 0 ? int64_t{pages} * page : 0;
  std::printf("CPU 0: %u threads, %.1f GiB memory (%s)\n", std::thread::hardware_concurrency(),
              gib(host_bytes), full_device_name(job, 0, device_cpu, 0).c_str());
  const gpu_enumeration& found = local_gpus();
  for (const local_gpu_info& g : found.gpus)
    std::printf("GPU %d: %s, %.1f GiB memory, %.1f GiB free, compute %d.%d, %d SMs, PCI %s (%s)\n",
                g.id, g.name.c_str(), gib(g.total_bytes), gib(g.free_bytes), g.compute_major,
                g.compute_minor, g.multiprocessors, g.pci_bus_id.c_str(),
                full_device_name(job, 0, device_gpu, g.id).c_str());
  if (found.gpus.empty()) std::printf("no GPU: %s\n", found.why_none.c_str());
  return 0;
}
