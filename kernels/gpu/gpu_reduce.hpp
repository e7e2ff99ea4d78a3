#pragma once
// A reduction pass queued with its scratch, for the kernels that reduce (Sum, Mean, Max,
// BiasAddGrad). The scratch comes from the GPU's allocator and is released as soon as the
// launches are queued: the allocator hands it out again only to work queued after them on the
// same compute stream.
#include "devices/gpu/cuda_status.hpp"
#include "devices/gpu/gpu_device.hpp"
#include "kernels/gpu/gpu_launch.hpp"

namespace caflow::gpu {

// out[o, i] = reduce over s of in[o, s, i], on g's compute stream. size >= 1.
template <class R, class T>
status reduce_on(gpu_device& g, const T* in, T* out, int64_t outer, int64_t size, int64_t inner) {
  const size_t bytes = reduce_scratch_bytes<R, T>(outer, size, inner);
  tensor scratch;
  if (bytes > 0) {
    CAFLOW_ASSIGN_OR_RETURN(scratch, g.allocate(dtype::uint8, tensor_shape{static_cast<int64_t>(bytes)}));
  }
  return cuda_status(launch_reduce<R, T>(in, out, outer, size, inner,
                                         bytes > 0 ? scratch.raw_data() : nullptr, bytes,
                                         g.compute_stream()),
                     "a reduction");
}

}  // namespace caflow::gpu
