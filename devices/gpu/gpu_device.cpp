#include "devices/gpu/gpu_device.hpp"
#include "devices/gpu/gpu_entry_points.hpp"

#include <unsupported/Eigen/CXX11/ThreadPool>

#include "devices/bfc_allocator.hpp"
#include "devices/gpu/cuda_status.hpp"
#include "devices/gpu/gpu_capture_scope.hpp"
#include "devices/gpu/gpu_graph.hpp"

namespace caflow {

namespace {

// Device memory, taken on the allocator's GPU whatever thread asks.
class cuda_sub_allocator final : public sub_allocator {
 public:
  explicit cuda_sub_allocator(int id) : id_(id) {}
  void* alloc(size_t bytes) override {
    void* p = nullptr;
    if (cudaSetDevice(id_) != cudaSuccess) return nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      (void)cudaGetLastError();  // an allocation failure is not sticky; clear it
      return nullptr;
    }
    return p;
  }
  void free(void* p, size_t) override {
    (void)cudaSetDevice(id_);
    (void)cudaFree(p);
  }

 private:
  int id_;
};

// Page-locked host memory, which the copy engines read and write without an extra copy.
class pinned_sub_allocator final : public sub_allocator {
 public:
  void* alloc(size_t bytes) override {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    return p;
  }
  void free(void* p, size_t) override { (void)cudaFreeHost(p); }
};

constexpr int64_t pinned_limit_bytes = int64_t{16} << 30;

}  // namespace

struct gpu_device::pool {
  explicit pool(int n) : threads(n) {}
  Eigen::ThreadPool threads;
};

gpu_device::gpu_device(std::string name, const gpu_device_options& opts, status* st)
    : device(std::move(name), device_gpu), opts_(opts) {
  auto bfc = std::make_shared<bfc_allocator>(
      "GPU:" + std::to_string(opts.cuda_id), std::make_unique<cuda_sub_allocator>(opts.cuda_id),
      bfc_options{.memory_limit_bytes = opts.memory_limit_bytes,
                  .allow_growth = opts.allow_growth,
                  .space = this});
  bfc_ = bfc.get();
  alloc_ = std::move(bfc);
  pinned_ = std::make_shared<bfc_allocator>(
      "pinned host", std::make_unique<pinned_sub_allocator>(),
      bfc_options{.memory_limit_bytes = pinned_limit_bytes, .allow_growth = true});
  pool_ = std::make_unique<pool>(std::max(opts.inter_op_threads, 1));
  *st = [&]() -> status {
    CAFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(opts_.cuda_id));
    CAFLOW_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
    CAFLOW_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    CAFLOW_RETURN_IF_ERROR(cublas_status(cublasCreate(&cublas_), "cublasCreate"));
    CAFLOW_RETURN_IF_ERROR(cublas_status(cublasSetStream(cublas_, compute_), "cublasSetStream"));
    return {};
  }();
}

gpu_device::~gpu_device() {
  pool_.reset();  // joins the launching threads first
  (void)cudaSetDevice(opts_.cuda_id);
  if (compute_) (void)cudaStreamSynchronize(compute_);
  if (copy_) (void)cudaStreamSynchronize(copy_);
  if (cudnn_) (void)cudnnDestroy(cudnn_);
  if (cublas_) (void)cublasDestroy(cublas_);
  if (copy_) (void)cudaStreamDestroy(copy_);
  if (compute_) (void)cudaStreamDestroy(compute_);
}

void gpu_device::schedule(std::function<void()> fn) { pool_->threads.Schedule(std::move(fn)); }

cudaStream_t gpu_device::compute_stream() const {
  const gpu_capture_scope* c = gpu_capture_scope::current();
  return c && c->dev == this ? c->stream : compute_;
}

const std::shared_ptr<allocator>& gpu_device::get_allocator() const {
  const gpu_capture_scope* c = gpu_capture_scope::current();
  return c && c->dev == this ? c->pool : alloc_;
}

status gpu_device::activate() const {
  return cuda_status(cudaSetDevice(opts_.cuda_id), "cudaSetDevice");
}

status_or<gpu_device::cudnn_lease> gpu_device::cudnn() {
  std::call_once(cudnn_once_, [this] {
    cudnn_error_ = [this]() -> status {
      CAFLOW_RETURN_IF_ERROR(activate());
      CAFLOW_RETURN_IF_ERROR(cudnn_status(cudnnCreate(&cudnn_), "cudnnCreate"));
      return cudnn_status(cudnnSetStream(cudnn_, compute_), "cudnnSetStream");
    }();
  });
  if (!cudnn_error_.ok()) return cudnn_error_;
  cudnn_lease lease{cudnn_, std::unique_lock<std::mutex>(cudnn_mu_)};
  // The handle follows the calling thread's stream: a recording's, or the compute stream.
  CAFLOW_RETURN_IF_ERROR(cudnn_status(cudnnSetStream(cudnn_, compute_stream()), "cudnnSetStream"));
  return lease;
}

status_or<tensor> gpu_device::allocate(dtype type, const tensor_shape& shape) const {
  auto t = tensor::allocate(get_allocator(), type, shape);
  if (!t.ok() && t.get_status().code() == error_code::resource_exhausted)
    return errors::resource_exhausted(bfc_->oom_message(static_cast<size_t>(shape.num_elements()) *
                                                        dtype_size(type)),
                                      " (for a ", dtype_name(type), shape.to_string(), " tensor)");
  return t;
}

status gpu_device::order_after(cudaStream_t waiter, cudaStream_t signaller) {
  if (waiter == signaller) return {};
  cudaEvent_t e;
  CAFLOW_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  status st = cuda_status(cudaEventRecord(e, signaller), "cudaEventRecord");
  if (st.ok()) st = cuda_status(cudaStreamWaitEvent(waiter, e, 0), "cudaStreamWaitEvent");
  (void)cudaEventDestroy(e);  // released once the wait is satisfied
  return st;
}

status_or<tensor> gpu_device::copy_in(const tensor& t) {
  memory_space* from = t.space();
  if (from == this || !t.initialized()) return t;
  if (from == nullptr) return cuda::copy_to_gpu(*this, t);
  if (auto* other = dynamic_cast<gpu_device*>(from)) return cuda::copy_gpu_to_gpu(*this, *other, t);
  CAFLOW_ASSIGN_OR_RETURN(tensor host, from->copy_to_host(t));
  return cuda::copy_to_gpu(*this, host);
}

status_or<tensor> gpu_device::copy_to_host(const tensor& t) { return cuda::copy_to_host(*this, t); }

bool gpu_device::is_capturing() const {
  const gpu_capture_scope* c = gpu_capture_scope::current();
  return c != nullptr && c->dev == this;
}

namespace {

// Regions of a recording's pool, taken from the GPU's allocator and given back when the pool
// (and so every tensor from it) is gone.
class region_sub_allocator final : public sub_allocator {
 public:
  explicit region_sub_allocator(std::shared_ptr<allocator> from) : from_(std::move(from)) {}
  void* alloc(size_t bytes) override { return from_->allocate(bytes); }
  void free(void* p, size_t bytes) override { from_->deallocate(p, bytes); }

 private:
  std::shared_ptr<allocator> from_;
};

}  // namespace

// A recording's buffers come from a BFC pool carved out of the GPU's own BFC, so that its
// memory counts against the GPU's limit.
status_or<std::unique_ptr<device_capture>> gpu_device::begin_capture() {
  if (!opts_.capture_graphs)
    return errors::failed_precondition("CUDA graphs are off for ", name());
  auto pool = std::make_shared<bfc_allocator>(
      name() + " graph pool", std::make_unique<region_sub_allocator>(alloc_),
      bfc_options{.memory_limit_bytes = bfc_->memory_limit(), .allow_growth = true, .space = this});
  return begin_gpu_capture(*this, std::move(pool));
}

status gpu_device::copy_into(const tensor& from, tensor& to) {
  if (from.byte_size() != to.byte_size())
    return errors::internal("copy within ", name(), ": ", from.byte_size(), " bytes into ",
                            to.byte_size());
  if (from.byte_size() == 0 || from.raw_data() == to.raw_data()) return {};
  CAFLOW_RETURN_IF_ERROR(activate());
  return cuda_status(cudaMemcpyAsync(to.raw_data(), from.raw_data(), from.byte_size(),
                                     cudaMemcpyDeviceToDevice, compute_stream()),
                     "cudaMemcpyAsync");
}

gpu_device* as_gpu(device& d) { return d.type() == device_gpu ? dynamic_cast<gpu_device*>(&d) : nullptr; }

}  // namespace caflow
