#pragma once
// ACCEL: a test-only device type with memory of its own, so CI (no GPU) exercises what a GPU
// brings to the runtime: a second device type in the registry, placement by priority, memory
// spaces, host-memory args, the copies between memories and the executor's check of them.
//
//   type ACCEL, priority 150 (between CPU 70 and GPU 210), host_memory() false
//   memory  a guarded arena: every block has canaries before and after it, checked when it is
//           freed, and is poisoned then; the allocator's space() is the device
//   kernels the CPU ones of accel_kernel_ops (kernel_registry::alias), with host-memory
//           reduction axes; Tile and Cast have no ACCEL kernel, for soft placement
//   count   one per task, or one per entry of gpu_options::virtual_device_memory_mb, each
//           arena holding at most that many MB: what virtual GPUs give, without a GPU
//
// Linking this file does not register the type. A test binary that wants every worker it
// spawns to have an ACCEL:0 says so once, at namespace scope of its own file:
//
//   CAFLOW_TEST_REGISTER_ACCEL_DEVICE();
//
// so the other test binaries keep their CPU-only tasks.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "devices/device.hpp"
#include "devices/device_factory.hpp"
#include "devices/gpu_devices.hpp"

namespace caflow::testing {

inline constexpr const char* device_accel = "ACCEL";
inline constexpr int accel_priority = 150;

// What every ACCEL arena and device of the process did, for tests that cannot reach the device
// a worker owns.
struct accel_counters {
  std::atomic<int64_t> copies_in{0};       // host (or another space) -> ACCEL
  std::atomic<int64_t> copies_to_host{0};  // ACCEL -> host
  std::atomic<int64_t> guard_violations{0};
};
accel_counters& accel_stats();

// The arena of one ACCEL device: host heap memory, but only its device's kernels may read it.
// Each block is [canary 64 B][payload, rounded up to 64 B][canary 64 B]; deallocate checks both
// canaries and the size, counts a violation (and says which) when they are wrong, and poisons
// the block before freeing it. Thread-safe.
class accel_arena final : public allocator {
 public:
  // `limit_bytes` 0: unlimited; else an allocation that would pass it fails (nullptr).
  accel_arena(std::string name, memory_space* space, int64_t limit_bytes = 0)
      : name_(std::move(name)), space_(space), limit_(limit_bytes) {}
  ~accel_arena() override;
  const char* name() const override { return name_.c_str(); }
  void* allocate(size_t bytes) override;
  void deallocate(void* p, size_t bytes) override;
  memory_space* space() const override { return space_; }

  allocator_stats stats() const;
  // Whether `p` is the payload of a live block of this arena.
  bool owns(const void* p) const;

 private:
  std::string name_;
  memory_space* space_;
  int64_t limit_;
  mutable std::mutex mu_;
  std::map<const void*, size_t> live_;  // payload -> requested bytes
  int64_t in_use_ = 0, peak_ = 0, allocs_ = 0;
};

// One ACCEL device: its arena, an inter-op pool for schedule() and an intra-op Eigen pool for
// the CPU kernels it borrows. It is its own memory_space.
class accel_device final : public device, public memory_space {
 public:
  explicit accel_device(std::string name, int threads = 2, int64_t memory_limit_bytes = 0);
  ~accel_device() override;

  const std::shared_ptr<allocator>& get_allocator() const override { return alloc_; }
  allocator_stats memory_stats() const override { return arena_->stats(); }
  void schedule(std::function<void()> fn) override;
  const Eigen::ThreadPoolDevice* eigen_cpu() const override;
  int intra_op_threads() const override { return threads_; }

  memory_space* memory() const override { return const_cast<accel_device*>(this); }
  // `t` itself when it is in this arena; otherwise a copy (through host memory when it is in
  // another device's memory).
  status_or<tensor> copy_in(const tensor& t) override;
  const std::string& space_name() const override { return name(); }
  // REQUIRES: `t` is in this device's memory (or in host memory: then `t` itself).
  status_or<tensor> copy_to_host(const tensor& t) override;

  accel_arena& arena() const { return *arena_; }

 private:
  struct pools;
  int threads_;
  std::shared_ptr<allocator> alloc_;
  accel_arena* arena_;
  std::unique_ptr<pools> pools_;
};

// The ops whose CPU kernels are registered for ACCEL, and the host-memory args they get there.
const std::map<std::string, std::vector<std::string>>& accel_kernel_ops();
// Ops with a CPU kernel but none for ACCEL: nodes of these fall back to the CPU.
inline const std::vector<std::string> accel_missing_ops = {"Tile", "Cast"};

class accel_device_factory final : public device_factory {
 public:
  std::string type() const override { return device_accel; }
  int priority() const override { return accel_priority; }
  bool host_memory() const override { return false; }
  int count(const device_options& opts) const override { return logical_devices_per_gpu(opts.gpu); }
  // /job:J/replica:0/task:T/device:ACCEL:0, and more for virtual devices.
  status_or<std::vector<std::unique_ptr<device>>> make_devices(const device_options& opts,
                                                               std::string_view job,
                                                               int task) const override;
};

// Registers accel_kernel_ops() for ACCEL; call once, during static initialization.
struct accel_kernels_registrar {
  accel_kernels_registrar();
};

}  // namespace caflow::testing

#define CAFLOW_TEST_REGISTER_ACCEL_DEVICE()                                \
  CAFLOW_REGISTER_DEVICE_FACTORY(::caflow::testing::accel_device_factory); \
  static const ::caflow::testing::accel_kernels_registrar caflow_accel_kernels_ {}
