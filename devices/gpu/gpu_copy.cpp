// Transfers between host and GPU memory and between GPUs.
#include <cstring>
#include <mutex>
#include <set>

#include "devices/gpu/cuda_status.hpp"
#include "devices/gpu/gpu_capture_scope.hpp"
#include "devices/gpu/gpu_device.hpp"
#include "devices/gpu/gpu_entry_points.hpp"

namespace caflow {

namespace {

status_or<gpu_device*> need_gpu(device& d) {
  gpu_device* g = as_gpu(d);
  if (!g) return errors::invalid_argument("device ", d.name(), " is not a GPU");
  return g;
}

// Keeps a tensor's bytes until the work queued so far on `stream` is done. The callback only
// drops a reference (a BFC deallocation is bookkeeping, no CUDA call, as callbacks require).
// Never while recording: the callback would run, and free, at every replay.
status hold_until_done(cudaStream_t stream, const tensor& t) {
  auto* held = new tensor(t);
  const cudaError_t e = cudaLaunchHostFunc(
      stream, [](void* p) { delete static_cast<tensor*>(p); }, held);
  if (e != cudaSuccess) {
    (void)cudaStreamSynchronize(stream);
    delete held;
  }
  return cuda_status(e, "cudaLaunchHostFunc");
}

// `waiter` (on any GPU) waits for what is queued so far on `signaller` of GPU `signaller_id`.
status order_across(cudaStream_t waiter, cudaStream_t signaller, int signaller_id, int waiter_id) {
  CAFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(signaller_id));
  cudaEvent_t e;
  CAFLOW_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  status st = cuda_status(cudaEventRecord(e, signaller), "cudaEventRecord");
  if (st.ok()) {
    st = cuda_status(cudaSetDevice(waiter_id), "cudaSetDevice");
    if (st.ok()) st = cuda_status(cudaStreamWaitEvent(waiter, e, 0), "cudaStreamWaitEvent");
  }
  (void)cudaEventDestroy(e);
  return st;
}

// Direct peer access, enabled once per ordered pair where the hardware allows it; without it,
// cudaMemcpyPeerAsync stages through host memory itself.
void enable_peer_access(int dst, int src) {
  static std::mutex mu;
  static std::set<std::pair<int, int>> tried;
  std::lock_guard<std::mutex> lock(mu);
  if (!tried.insert({dst, src}).second) return;
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, dst, src) == cudaSuccess && can &&
      cudaSetDevice(dst) == cudaSuccess) {
    const cudaError_t e = cudaDeviceEnablePeerAccess(src, 0);
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
  }
  (void)cudaGetLastError();
}

// Whether `p` is in page-locked host memory the CUDA runtime knows (cudaHostAlloc'd or
// registered), which a copy engine can read directly.
bool is_page_locked(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

}  // namespace

namespace cuda {

status_or<tensor> copy_to_gpu(device& dev, const tensor& host) {
  CAFLOW_ASSIGN_OR_RETURN(gpu_device * g, need_gpu(dev));
  CAFLOW_RETURN_IF_ERROR(g->activate());
  CAFLOW_ASSIGN_OR_RETURN(tensor out, g->allocate(host.type(), host.shape()));
  const size_t bytes = host.byte_size();
  if (bytes == 0) return out;
  gpu_capture_scope* c = gpu_capture_scope::current();
  const bool recording = c && c->dev == g;
  // A value already in page-locked memory (one a GPU copied out) goes as it is: the copy engine
  // reads it, with no staging pass on the host.
  const bool direct = !recording && is_page_locked(host.raw_data());
  tensor source = host;
  if (!direct) {
    CAFLOW_ASSIGN_OR_RETURN(source,
                            tensor::allocate(g->pinned_allocator(), host.type(), host.shape()));
    std::memcpy(source.raw_data(), host.raw_data(), bytes);
  }
  if (recording) {
    // Recorded: every replay copies these bytes again, so the staging buffer lives as long as
    // the recording. The executor replays only where the host value equals the recorded one.
    CAFLOW_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.raw_data(), source.raw_data(), bytes,
                                                cudaMemcpyHostToDevice, c->stream));
    c->staged.push_back(std::move(source));
    return out;
  }
  // The destination chunk may have been freed by a kernel still queued on the compute stream.
  CAFLOW_RETURN_IF_ERROR(gpu_device::order_after(g->copy_stream(), g->compute_stream()));
  CAFLOW_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.raw_data(), source.raw_data(), bytes,
                                              cudaMemcpyHostToDevice, g->copy_stream()));
  CAFLOW_RETURN_IF_ERROR(hold_until_done(g->copy_stream(), source));
  CAFLOW_RETURN_IF_ERROR(gpu_device::order_after(g->compute_stream(), g->copy_stream()));
  return out;
}

status_or<tensor> copy_to_host(device& dev, const tensor& on_gpu) {
  CAFLOW_ASSIGN_OR_RETURN(gpu_device * g, need_gpu(dev));
  CAFLOW_RETURN_IF_ERROR(g->activate());
  const size_t bytes = on_gpu.byte_size();
  // Into page-locked memory, which is then the host value itself: the copy engine writes it at
  // full speed and no second pass copies it into pageable memory (a large value's pageable
  // pages would also be faulted in afresh). Where the pinned pool is spent, pageable memory.
  auto pinned = tensor::allocate(g->pinned_allocator(), on_gpu.type(), on_gpu.shape());
  if (!pinned.ok()) pinned = tensor::allocate(default_allocator(), on_gpu.type(), on_gpu.shape());
  CAFLOW_ASSIGN_OR_RETURN(tensor host, std::move(pinned));
  if (bytes == 0) return host;
  CAFLOW_RETURN_IF_ERROR(gpu_device::order_after(g->copy_stream(), g->compute_stream()));
  // Default: the runtime tells device from host pointers, so a host tensor is copied too.
  CAFLOW_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host.raw_data(), on_gpu.raw_data(), bytes,
                                              cudaMemcpyDefault, g->copy_stream()));
  CAFLOW_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(g->copy_stream()));
  return host;
}

status_or<tensor> copy_gpu_to_gpu(device& dst_dev, device& src_dev, const tensor& on_src) {
  CAFLOW_ASSIGN_OR_RETURN(gpu_device * dst, need_gpu(dst_dev));
  CAFLOW_ASSIGN_OR_RETURN(gpu_device * src, need_gpu(src_dev));
  if (dst == src) return on_src;
  // Its source is held by a host callback (hold_until_done), which a recording cannot keep.
  if (const gpu_capture_scope* c = gpu_capture_scope::current();
      c && (c->dev == src || c->dev == dst))
    return errors::unimplemented("a transfer from ", src->name(), " to ", dst->name(),
                                 " cannot be recorded in a CUDA graph");
  // Two virtual devices of one card copy within it; only distinct cards need peer access.
  if (dst->cuda_id() != src->cuda_id()) enable_peer_access(dst->cuda_id(), src->cuda_id());
  CAFLOW_RETURN_IF_ERROR(dst->activate());
  CAFLOW_ASSIGN_OR_RETURN(tensor out, dst->allocate(on_src.type(), on_src.shape()));
  const size_t bytes = on_src.byte_size();
  if (bytes == 0) return out;
  const int s = src->cuda_id(), d = dst->cuda_id();
  // The copy runs on the source's copy stream after the source's kernels (the value is ready)
  // and the destination's (its chunk may have just been freed); the destination's later
  // kernels wait for it.
  CAFLOW_RETURN_IF_ERROR(order_across(src->copy_stream(), src->compute_stream(), s, s));
  CAFLOW_RETURN_IF_ERROR(order_across(src->copy_stream(), dst->compute_stream(), d, s));
  CAFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(s));
  CAFLOW_CUDA_RETURN_IF_ERROR(
      cudaMemcpyPeerAsync(out.raw_data(), d, on_src.raw_data(), s, bytes, src->copy_stream()));
  CAFLOW_RETURN_IF_ERROR(hold_until_done(src->copy_stream(), on_src));
  CAFLOW_RETURN_IF_ERROR(order_across(dst->compute_stream(), src->copy_stream(), s, d));
  return out;
}

}  // namespace cuda
}  // namespace caflow
