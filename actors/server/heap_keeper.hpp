#pragma once
// Hands a task's free heap pages back to the OS now and then. glibc serves blocks past its
// mmap threshold from the heap once it has raised that threshold (it does after the first
// large free), and the large blocks a task frees (a connection's serialization buffer, a
// restore's file) then stay resident: a ps whose workers keep reconnecting after faults grew
// about 1 MB per fault. Trimming them is cheap and rare; a fixed low mmap threshold would cost
// every large message an mmap and its page faults (sync training ran at a third of its speed).
//
//   every `interval`: free heap bytes >= min_free_bytes  ->  trim
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <chrono>
#include <cstddef>
#include <functional>

namespace caflow {

struct heap_keeper_options {
  std::chrono::milliseconds interval{30000};
  size_t min_free_bytes = size_t{4} << 20;
  // The heap's free bytes, and the trim; glibc's mallinfo2 and malloc_trim when left empty
  // (elsewhere, the keeper does nothing).
  std::function<size_t()> free_bytes{};
  std::function<void()> trim{};
};

caf::actor spawn_heap_keeper(caf::actor_system& sys, heap_keeper_options opts);

}  // namespace caflow
