#pragma once
// Timing GPU work by CUDA events on the compute stream, for choosing between convolution
// algorithms by measurement (conv_kernels.cpp). Blocks the host until the work is done.
#include <functional>

#include "devices/gpu/gpu_device.hpp"

namespace caflow::gpu {

// Runs `queue` (which queues work on g.compute_stream() and returns its status) once to warm
// up (first launches load kernels), then up to three more times, and returns the fastest of
// those in milliseconds. Stops after the first timed run when it took longer than
// `give_up_ms` (the candidate is out of the race). An error from `queue` or CUDA is returned.
status_or<float> time_on_stream(gpu_device& g, const std::function<status()>& queue,
                                float give_up_ms);

}  // namespace caflow::gpu
