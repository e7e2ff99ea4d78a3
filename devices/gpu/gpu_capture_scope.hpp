#pragma once
// The recording a thread has open on a GPU (devices/gpu/gpu_graph.hpp): the stream its kernels queue on and
// the pool their buffers come from. Thread-local, so other threads' kernels on the same GPU
// (another partition, another worker of the process) are neither recorded nor given its pool.
#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "graph/core/allocator.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

class gpu_device;

struct gpu_capture_scope {
  const gpu_device* dev = nullptr;
  cudaStream_t stream = nullptr;
  std::shared_ptr<allocator> pool;
  // Host buffers that recorded copies read (gpu_copy.cpp): kept as long as the recording,
  // since every replay copies from them again.
  std::vector<tensor> staged;
  gpu_capture_scope* outer = nullptr;  // an enclosing recording of another GPU

  // The calling thread's innermost open recording, or nullptr.
  static gpu_capture_scope* current();
  // `s` becomes the calling thread's innermost recording; leave(s) makes its outer one that
  // again. REQUIRES: recordings on a thread leave in the reverse order they entered.
  static void enter(gpu_capture_scope* s);
  static void leave(gpu_capture_scope* s);
};

}  // namespace caflow
