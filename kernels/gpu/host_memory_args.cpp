// The GPU kernels' host-memory args (TF's HostMemory): shapes, axes and sizes they read on the
// host. The partitioner keeps these values in host memory, so they never make a round trip
// through the GPU, and copies a GPU-computed one to the host once where a graph needs it.
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {

CAFLOW_REGISTER_HOST_MEMORY("Reshape", device_gpu, "shape");
CAFLOW_REGISTER_HOST_MEMORY("Fill", device_gpu, "dims", "value");
CAFLOW_REGISTER_HOST_MEMORY("Sum", device_gpu, "reduction_indices");
CAFLOW_REGISTER_HOST_MEMORY("Mean", device_gpu, "reduction_indices");
CAFLOW_REGISTER_HOST_MEMORY("Max", device_gpu, "reduction_indices");
CAFLOW_REGISTER_HOST_MEMORY("Min", device_gpu, "reduction_indices");
CAFLOW_REGISTER_HOST_MEMORY("Prod", device_gpu, "reduction_indices");
CAFLOW_REGISTER_HOST_MEMORY("ArgMax", device_gpu, "dimension");
CAFLOW_REGISTER_HOST_MEMORY("Conv2DBackpropInput", device_gpu, "input_sizes");
CAFLOW_REGISTER_HOST_MEMORY("Conv2DBackpropFilter", device_gpu, "filter_sizes");
CAFLOW_REGISTER_HOST_MEMORY("AvgPoolGrad", device_gpu, "orig_input_shape");
CAFLOW_REGISTER_HOST_MEMORY("Tile", device_gpu, "multiples");
CAFLOW_REGISTER_HOST_MEMORY("RandomUniform", device_gpu, "shape");
CAFLOW_REGISTER_HOST_MEMORY("RandomStandardNormal", device_gpu, "shape");
CAFLOW_REGISTER_HOST_MEMORY("TruncatedNormal", device_gpu, "shape");

}  // namespace caflow
