#include "devices/cpu_device.hpp"

#include <pthread.h>

#include <thread>
#include <unsupported/Eigen/CXX11/Tensor>

#include "devices/caching_allocator.hpp"
#include "devices/device_factory.hpp"
#include "graph/core/device_name.hpp"
#include "graph/platform/denormal.hpp"

namespace caflow {

namespace {
// Eigen's thread environment, with every thread flushing denormals to zero for its whole life,
// as TensorFlow's pools do (graph/platform/denormal.hpp says why), and named for its pool, so
// that top -H, perf and gdb tell a device's threads from the network loop they were started on
// (a thread inherits its creator's name).
struct flush_denormal_environment : Eigen::StlThreadEnvironment {
  const char* name = "cf.pool";
  EnvThread* CreateThread(std::function<void()> f) {
    return Eigen::StlThreadEnvironment::CreateThread([f = std::move(f), name = name] {
      pthread_setname_np(pthread_self(), name);
      const scoped_flush_denormal flush;
      f();
    });
  }
};
using thread_pool = Eigen::ThreadPoolTempl<flush_denormal_environment>;

flush_denormal_environment named(const char* name) {
  flush_denormal_environment env;
  env.name = name;
  return env;
}
}  // namespace

struct cpu_device::pools {
  pools(int intra, int inter, bool inter_spins)
      : intra_pool(intra, true, named("cf.intra_op")),
        eigen(&intra_pool, intra),
        inter_pool(inter, inter_spins, named("cf.inter_op")) {}
  thread_pool intra_pool;
  Eigen::ThreadPoolDevice eigen;
  thread_pool inter_pool;
};

namespace {
int resolve_threads(int n) {
  if (n > 0) return n;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}
}  // namespace

cpu_device::cpu_device(std::string name, const cpu_device_options& opts)
    : device(std::move(name), device_cpu),
      intra_threads_(resolve_threads(opts.intra_op_threads)),
      inter_threads_(resolve_threads(opts.inter_op_threads)) {
  files_ = opts.files;
  // Counted above the cache: the stats and the limit see the bytes tensors hold.
  auto counter = std::make_shared<counting_allocator>(
      "cpu", std::make_shared<caching_allocator>(default_allocator()), opts.memory_limit_bytes);
  counter_ = counter.get();
  alloc_ = std::move(counter);
  inter_spins_ = opts.spin_inter_op_threads;
}

cpu_device::pools& cpu_device::the_pools() const {
  std::call_once(pools_made_, [this] {
    pools_ = std::make_unique<pools>(intra_threads_, inter_threads_, inter_spins_);
  });
  return *pools_;
}

cpu_device::~cpu_device() = default;

allocator_stats cpu_device::memory_stats() const { return counter_->stats(); }

void cpu_device::schedule(std::function<void()> fn) { the_pools().inter_pool.Schedule(std::move(fn)); }

const Eigen::ThreadPoolDevice* cpu_device::eigen_cpu() const { return &the_pools().eigen; }

}  // namespace caflow

namespace caflow {
namespace {

class cpu_device_factory final : public device_factory {
 public:
  std::string type() const override { return device_cpu; }
  int priority() const override { return 70; }
  bool host_memory() const override { return true; }
  int count(const device_options&) const override { return 1; }
  status_or<std::vector<std::unique_ptr<device>>> make_devices(const device_options& opts,
                                                               std::string_view job,
                                                               int task) const override {
    std::vector<std::unique_ptr<device>> out;
    out.push_back(std::make_unique<cpu_device>(full_device_name(job, task, device_cpu, 0), opts.cpu));
    return out;
  }
};

CAFLOW_REGISTER_DEVICE_FACTORY(cpu_device_factory);

}  // namespace
}  // namespace caflow
