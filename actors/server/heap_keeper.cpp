#include "actors/server/heap_keeper.hpp"

#include <caf/event_based_actor.hpp>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace caflow {
namespace {

using heap_tick_atom = caf::atom_constant<caf::atom("cf_heaptk")>;

size_t glibc_free_bytes() {
#if defined(__GLIBC__)
  return ::mallinfo2().fordblks;
#else
  return 0;
#endif
}

void glibc_trim() {
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}

caf::behavior heap_keeper(caf::event_based_actor* self, heap_keeper_options opts) {
  if (!opts.free_bytes) opts.free_bytes = glibc_free_bytes;
  if (!opts.trim) opts.trim = glibc_trim;
  self->delayed_send(self, opts.interval, heap_tick_atom::value);
  return {
      [=](heap_tick_atom) {
        if (opts.free_bytes() >= opts.min_free_bytes) opts.trim();
        self->delayed_send(self, opts.interval, heap_tick_atom::value);
      },
  };
}

}  // namespace

caf::actor spawn_heap_keeper(caf::actor_system& sys, heap_keeper_options opts) {
  // Detached would cost a thread for a timer; it runs in the scheduler's pool, for microseconds
  // every interval.
  return sys.spawn(heap_keeper, std::move(opts));
}

}  // namespace caflow
