#pragma once
// One device of a task (CPU:0, GPU:k) as an actor that owns it: its allocator, its threads,
// and on a GPU its streams and cuBLAS and cuDNN handles, all released when the actor and the
// worker's executors are done with it. It answers by message:
//
//   cf_dstats             memory in use, peak and limit (the console's `devices`)
//   cf_dcopy value, out   the value copied into this device's memory, or out of it to the host
//                         (in-process only: a device-memory tensor never crosses processes)
//   cf_drun run           runs the device's share of a step: a partition compiled for it
//
// A run starts on the device actor's thread with light nodes only, and every other kernel runs
// on the device's own threads (actors/executor/executor.hpp): the light-node fast path of the worker
// and the rendezvous actors stays, and the device's state stays with the device.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/fwd.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/typed_actor.hpp>

#include "actors/executor/executor.hpp"
#include "devices/device.hpp"
#include "net/protocol.hpp"

namespace caflow {

using cf_dev_stats_atom = caf::atom_constant<caf::atom("cf_dstats")>;
using cf_dev_copy_atom = caf::atom_constant<caf::atom("cf_dcopy")>;
using cf_dev_run_atom = caf::atom_constant<caf::atom("cf_drun")>;

struct device_status {
  std::string name;
  std::string type;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t num_allocs = 0;
  int64_t bytes_limit = 0;  // 0: none
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_status& x) {
  return f(caf::meta::type_name("device_status"), x.name, x.type, x.bytes_in_use,
           x.peak_bytes_in_use, x.num_allocs, x.bytes_limit);
}

// A run of one partition on the device: its executor (kept alive by the worker until `done`
// has run), the step and the callback that reports the result.
struct device_run {
  executor* exec = nullptr;
  step_context step;
  executor::done_fn done;
};
using device_run_ptr = std::shared_ptr<device_run>;

using device_actor =
    caf::typed_actor<caf::replies_to<cf_dev_stats_atom>::with<device_status>,
                     caf::replies_to<cf_dev_copy_atom, wire_tensor, bool>::with<wire_tensor>,
                     caf::reacts_to<cf_dev_run_atom, device_run_ptr>>;

// The actor owning `dev`; others may share `dev` (the worker, to compile executors on it),
// and it is freed with the last of them.
device_actor spawn_device_actor(caf::actor_system& sys, std::shared_ptr<device> dev);

// What the device's allocator reports, as the actor answers cf_dstats.
device_status status_of(const device& dev);

}  // namespace caflow

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(caflow::device_run_ptr)
