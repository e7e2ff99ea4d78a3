#include "test_util/accel_device.hpp"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <unsupported/Eigen/CXX11/Tensor>

#include "graph/core/device_name.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow::testing {

accel_counters& accel_stats() {
  static accel_counters c;
  return c;
}

namespace {

constexpr size_t guard_bytes = tensor_alignment;
constexpr unsigned char canary = 0xA5;
constexpr unsigned char poison = 0xDB;

size_t round_up(size_t n) {
  return (n + tensor_alignment - 1) / tensor_alignment * tensor_alignment;
}

bool intact(const unsigned char* p) {
  for (size_t i = 0; i < guard_bytes; ++i)
    if (p[i] != canary) return false;
  return true;
}

void violation(const std::string& arena, const std::string& what) {
  accel_stats().guard_violations.fetch_add(1);
  std::cerr << "accel arena " << arena << ": " << what << "\n";
}

}  // namespace

accel_arena::~accel_arena() {
  std::lock_guard<std::mutex> lock(mu_);
  // Tensors share the arena (shared_ptr), so it dies after the last of them.
  if (!live_.empty()) violation(name_, std::to_string(live_.size()) + " blocks never freed");
}

void* accel_arena::allocate(size_t bytes) {
  const size_t payload = round_up(bytes == 0 ? 1 : bytes);
  auto* base =
      static_cast<unsigned char*>(std::aligned_alloc(tensor_alignment, payload + 2 * guard_bytes));
  if (!base) return nullptr;
  std::memset(base, canary, guard_bytes);
  std::memset(base + guard_bytes + bytes, canary, payload - bytes + guard_bytes);
  // Fresh memory reads as garbage, as device memory would: a kernel must write its output.
  std::memset(base + guard_bytes, poison, bytes);
  void* p = base + guard_bytes;
  std::lock_guard<std::mutex> lock(mu_);
  if (limit_ > 0 && in_use_ + static_cast<int64_t>(bytes) > limit_) {
    std::free(base);
    return nullptr;
  }
  live_[p] = bytes;
  in_use_ += static_cast<int64_t>(bytes);
  peak_ = std::max(peak_, in_use_);
  ++allocs_;
  return p;
}

void accel_arena::deallocate(void* p, size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(p);
    if (it == live_.end()) {
      violation(name_, "freeing a block it does not hold");
      return;  // not ours to free
    }
    if (it->second != bytes)
      violation(name_, "a block of " + std::to_string(it->second) + " bytes freed as " +
                           std::to_string(bytes));
    bytes = it->second;
    live_.erase(it);
    in_use_ -= static_cast<int64_t>(bytes);
  }
  auto* base = static_cast<unsigned char*>(p) - guard_bytes;
  const size_t payload = round_up(bytes == 0 ? 1 : bytes);
  bool tail_ok = true;
  for (size_t i = bytes; i < payload + guard_bytes; ++i)
    tail_ok = tail_ok && base[guard_bytes + i] == canary;
  if (!intact(base)) violation(name_, "the canary before a block was overwritten");
  if (!tail_ok) violation(name_, "a block of " + std::to_string(bytes) + " bytes was overrun");
  std::memset(base, poison, payload + 2 * guard_bytes);
  std::free(base);
}

allocator_stats accel_arena::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {in_use_, peak_, allocs_, 0};
}

bool accel_arena::owns(const void* p) const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.count(p) != 0;
}

struct accel_device::pools {
  explicit pools(int n) : intra(n), eigen(&intra, n), inter(n) {}
  Eigen::ThreadPool intra;
  Eigen::ThreadPoolDevice eigen;
  Eigen::ThreadPool inter;
};

accel_device::accel_device(std::string name, int threads, int64_t memory_limit_bytes)
    : device(std::move(name), device_accel), threads_(threads) {
  auto arena = std::make_shared<accel_arena>(this->name(), this, memory_limit_bytes);
  arena_ = arena.get();
  alloc_ = std::move(arena);
  pools_ = std::make_unique<pools>(threads_);
}

accel_device::~accel_device() = default;

void accel_device::schedule(std::function<void()> fn) { pools_->inter.Schedule(std::move(fn)); }

const Eigen::ThreadPoolDevice* accel_device::eigen_cpu() const { return &pools_->eigen; }

status_or<tensor> accel_device::copy_in(const tensor& t) {
  memory_space* from = t.space();
  if (from == this || !t.initialized()) return t;
  tensor host = t;
  if (from != nullptr) {
    CAFLOW_ASSIGN_OR_RETURN(host, from->copy_to_host(t));
  }
  CAFLOW_ASSIGN_OR_RETURN(tensor here, tensor::allocate(alloc_, host.type(), host.shape()));
  if (host.byte_size() > 0) std::memcpy(here.raw_data(), host.raw_data(), host.byte_size());
  accel_stats().copies_in.fetch_add(1);
  return here;
}

status_or<tensor> accel_device::copy_to_host(const tensor& t) {
  memory_space* from = t.space();
  if (from == nullptr) return t;
  if (from != this)
    return errors::internal(name(), " was asked to copy a tensor in the memory of ",
                            from->space_name(), " to the host");
  CAFLOW_ASSIGN_OR_RETURN(tensor host, tensor::allocate(default_allocator(), t.type(), t.shape()));
  if (t.byte_size() > 0) std::memcpy(host.raw_data(), t.raw_data(), t.byte_size());
  accel_stats().copies_to_host.fetch_add(1);
  return host;
}

const std::map<std::string, std::vector<std::string>>& accel_kernel_ops() {
  static const std::map<std::string, std::vector<std::string>> ops = {
      {"MatMul", {}},
      {"Add", {}},
      {"AddV2", {}},
      {"Sub", {}},
      {"Mul", {}},
      {"Neg", {}},
      {"Relu", {}},
      {"ReluGrad", {}},
      {"BiasAdd", {}},
      {"Softmax", {}},
      {"Sum", {"reduction_indices"}},
      {"Mean", {"reduction_indices"}},
  };
  return ops;
}

status_or<std::vector<std::unique_ptr<device>>> accel_device_factory::make_devices(
    const device_options& opts, std::string_view job, int task) const {
  std::vector<std::unique_ptr<device>> out;
  const std::vector<int64_t>& virtual_mb = opts.gpu.virtual_device_memory_mb;
  if (virtual_mb.empty()) {
    out.push_back(std::make_unique<accel_device>(full_device_name(job, task, device_accel, 0)));
    return out;
  }
  for (size_t i = 0; i < virtual_mb.size(); ++i)
    out.push_back(std::make_unique<accel_device>(
        full_device_name(job, task, device_accel, static_cast<int>(i)), 2, virtual_mb[i] << 20));
  return out;
}

accel_kernels_registrar::accel_kernels_registrar() {
  for (const auto& [op, host_args] : accel_kernel_ops())
    kernel_registry::global().alias(op, device_cpu, device_accel, host_args);
}

}  // namespace caflow::testing
