#pragma once
// CUDA graphs for gpu_device: a recording is a stream capture on a stream of its own, in
// relaxed mode (its pool may still take regions with cudaMalloc); its kernels' buffers come
// from `pool`, and the finished graph replays on the GPU's compute stream.
#include <memory>

#include "devices/device_graph.hpp"
#include "graph/core/allocator.hpp"
#include "graph/core/status.hpp"

namespace caflow {

class gpu_device;

// Opens a recording of `g` on the calling thread (gpu_capture_scope::current() until it is
// finished or destroyed). Errors: CUDA's, naming the call.
status_or<std::unique_ptr<device_capture>> begin_gpu_capture(gpu_device& g,
                                                             std::shared_ptr<allocator> pool);

}  // namespace caflow
