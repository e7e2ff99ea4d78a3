#pragma once
// CAF settings that only a ThreadSanitizer build changes, for every actor system caflow or its
// tests configure.
#include <caf/actor_system_config.hpp>

#include "graph/platform/thread_sanitizer.hpp"

namespace caflow {

inline void apply_sanitizer_settings([[maybe_unused]] caf::actor_system_config& cfg) {
#ifdef CAFLOW_TSAN
  // BASP hands every received buffer from the multiplexer thread to one of its worker threads
  // through libcaf's own queue, which TSan cannot see: it reports (and the suppressions then
  // drop) a race on every 8 bytes, and a 4 MiB chunk took minutes. Deserializing on the
  // multiplexer thread keeps the bytes on one thread.
  cfg.set("middleman.workers", size_t{0});
#endif
}

}  // namespace caflow
