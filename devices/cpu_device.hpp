#pragma once
// The CPU device: a counting allocator (over a cache of large blocks, devices/caching_allocator)
// and two Eigen thread pools, one to run graph nodes concurrently (inter-op) and one for
// parallelism inside a kernel (intra-op). Two pools, so a kernel waiting on its intra-op work
// can never starve the scheduler.
#include <memory>
#include <mutex>

#include "devices/device.hpp"

namespace caflow {

struct cpu_device_options {
  int intra_op_threads = 0;  // 0: the number of hardware threads
  int inter_op_threads = 0;  // 0: the number of hardware threads
  int64_t memory_limit_bytes = 0;  // 0: unlimited
  // Where SaveV2 and RestoreV2 may read and write: anywhere for a local session; a server
  // sets it from server_options::file_roots.
  file_access files = file_access::anywhere();
  // Whether idle inter-op threads spin a while before they sleep. Eigen's default; off here:
  // a step's kernels come a few at a time, and on a machine with few cores the spinning
  // threads of several tasks took the cores their network threads needed (2 cores, 3 tasks:
  // bench/dist_step_latency_us 412-431 -> 333-388 us; train_mlp unchanged; local_step_rate
  // -4%). The intra-op pool spins, for the fork-join bursts of Eigen's parallel loops.
  bool spin_inter_op_threads = false;
};

class cpu_device final : public device {
 public:
  cpu_device(std::string name, const cpu_device_options& opts = {});
  ~cpu_device() override;
  const std::shared_ptr<allocator>& get_allocator() const override { return alloc_; }
  allocator_stats memory_stats() const override;
  void schedule(std::function<void()> fn) override;
  const Eigen::ThreadPoolDevice* eigen_cpu() const override;
  int intra_op_threads() const override { return intra_threads_; }
  int inter_op_threads() const { return inter_threads_; }

 private:
  struct pools;
  // Made by the first kernel that needs them: a task that never runs a graph (an idle server,
  // a ps that only serves variables' reads) keeps no threads for them.
  pools& the_pools() const;
  std::shared_ptr<allocator> alloc_;
  counting_allocator* counter_;
  int intra_threads_, inter_threads_;
  bool inter_spins_ = false;
  mutable std::once_flag pools_made_;
  mutable std::unique_ptr<pools> pools_;
};

}  // namespace caflow
