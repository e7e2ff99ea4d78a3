#pragma once
// One GPU of this process. Kernels run as launches on its compute stream, in the order the
// executor calls them, so a buffer freed on the host may be handed to the next kernel at once
// (the stream orders the reuse after the last reader). Transfers use a second stream, the copy
// stream, which waits on the compute stream's work before touching device buffers, so copies
// overlap the kernels queued after them.
//
// Memory: a BFC allocator over cudaMalloc regions for tensors, and a BFC over cudaHostAlloc
// (pinned) memory for staging transfers.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <memory>
#include <mutex>

#include "devices/bfc_allocator.hpp"
#include "devices/device.hpp"
#include "devices/gpu_devices.hpp"

namespace caflow {

struct gpu_device_options {
  int cuda_id = 0;               // the CUDA runtime's ordinal (after CUDA_VISIBLE_DEVICES)
  int64_t memory_limit_bytes = 0;  // REQUIRED > 0
  bool allow_growth = false;
  int inter_op_threads = 2;      // host threads that launch kernels
  bool capture_graphs = true;    // steps may be recorded as CUDA graphs (device_graph.hpp)
};

class gpu_device final : public device, public memory_space {
 public:
  // The handles and streams are made on the calling thread; errors go to `st`.
  gpu_device(std::string name, const gpu_device_options& opts, status* st);
  ~gpu_device() override;

  // While the calling thread records this GPU's work, the recording's pool (device_graph.hpp).
  const std::shared_ptr<allocator>& get_allocator() const override;
  allocator_stats memory_stats() const override { return bfc_->stats(); }
  bfc_stats detailed_memory_stats() const { return bfc_->detailed_stats(); }
  void schedule(std::function<void()> fn) override;
  memory_space* memory() const override { return const_cast<gpu_device*>(this); }
  // From host memory: queued on the copy stream, before this GPU's later kernels. From another
  // GPU of this process: a peer copy. From another device's memory: through host memory.
  status_or<tensor> copy_in(const tensor& t) override;
  const std::string& space_name() const override { return name(); }
  // Waits for this GPU's queued kernels, then copies.
  status_or<tensor> copy_to_host(const tensor& t) override;
  // CUDA graphs (devices/gpu/gpu_graph.cpp).
  bool can_capture() const override { return opts_.capture_graphs; }
  bool is_capturing() const override;
  status_or<std::unique_ptr<device_capture>> begin_capture() override;
  status copy_into(const tensor& from, tensor& to) override;

  int cuda_id() const { return opts_.cuda_id; }
  // Makes this GPU current on the calling thread; every kernel calls it first.
  status activate() const;
  // The stream kernels queue on: while the calling thread records this GPU's work, the
  // recording's own stream, which other threads' kernels never touch.
  cudaStream_t compute_stream() const;
  cudaStream_t copy_stream() const { return copy_; }
  // Bound to the compute stream.
  cublasHandle_t cublas() const { return cublas_; }
  // cuDNN's handle, bound to the compute stream. A handle serves one host thread at a time,
  // so the lease holds the device's cuDNN lock until it is dropped: keep it only while
  // queuing cuDNN calls. Made at first use (creating it costs ~100 ms); an error then is kept
  // and returned to every later caller.
  struct cudnn_lease {
    cudnnHandle_t handle = nullptr;
    std::unique_lock<std::mutex> lock;
  };
  status_or<cudnn_lease> cudnn();
  const bfc_allocator& gpu_allocator() const { return *bfc_; }
  const std::shared_ptr<allocator>& main_allocator() const { return alloc_; }
  // Pinned host memory for staging transfers.
  const std::shared_ptr<allocator>& pinned_allocator() const { return pinned_; }
  // An output of `shape`, or an error naming the bytes asked for and the limit.
  status_or<tensor> allocate(dtype type, const tensor_shape& shape) const;
  // Makes `waiter` wait for the work queued so far on `signaller` (no host blocking).
  static status order_after(cudaStream_t waiter, cudaStream_t signaller);

 private:
  struct pool;
  gpu_device_options opts_;
  std::shared_ptr<allocator> alloc_, pinned_;
  bfc_allocator* bfc_ = nullptr;
  cudaStream_t compute_ = nullptr, copy_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::once_flag cudnn_once_;
  std::mutex cudnn_mu_;
  cudnnHandle_t cudnn_ = nullptr;
  status cudnn_error_;
  std::unique_ptr<pool> pool_;
};

// The gpu_device behind `d`, or nullptr when it is another kind.
gpu_device* as_gpu(device& d);

}  // namespace caflow
