#include "actors/device/device_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "net/errors.hpp"

namespace caflow {
namespace {

struct device_state {
  std::shared_ptr<device> dev;
  static inline const char* name = "caflow.device";
};

device_actor::behavior_type device_behavior(
    device_actor::stateful_pointer<device_state> self, std::shared_ptr<device> dev) {
  self->state.dev = std::move(dev);
  return {
      [self](cf_dev_stats_atom) { return status_of(*self->state.dev); },
      [self](cf_dev_copy_atom, const wire_tensor& value, bool to_host_memory)
          -> caf::result<wire_tensor> {
        auto out = to_host_memory ? to_host(value.value) : self->state.dev->copy_in(value.value);
        if (!out.ok())
          return to_caf_error(out.get_status().with_context("device " + self->state.dev->name()));
        return wire_tensor{std::move(out).value()};
      },
      [](cf_dev_run_atom, const device_run_ptr& run) {
        executor::actor_thread_scope on_actor;
        run->exec->run_async(run->step, std::move(run->done));
      },
  };
}

}  // namespace

device_status status_of(const device& dev) {
  const allocator_stats s = dev.memory_stats();
  return {dev.name(), dev.type(), s.bytes_in_use, s.peak_bytes_in_use, s.num_allocs,
          s.bytes_limit};
}

device_actor spawn_device_actor(caf::actor_system& sys, std::shared_ptr<device> dev) {
  return sys.spawn(device_behavior, std::move(dev));
}

}  // namespace caflow
