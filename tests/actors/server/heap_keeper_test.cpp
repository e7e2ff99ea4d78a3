// The heap keeper (actors/server/heap_keeper.hpp) trims only when the heap holds enough free
// bytes, at every interval; and the real one (glibc's) returns a freed heap block's pages.
#include "actors/server/heap_keeper.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <caf/all.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace caflow;
using namespace std::chrono_literals;

namespace {

// Waits up to 5 s for `done`.
template <class F>
bool eventually(F done) {
  for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(10ms);
  return done();
}

long resident_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

}  // namespace

TEST_CASE("the heap keeper trims when free bytes reach its bar, at each interval") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  std::atomic<size_t> free_now{1 << 20};
  std::atomic<int> asked{0}, trimmed{0};
  auto keeper = spawn_heap_keeper(sys, {.interval = 20ms,
                                        .min_free_bytes = 4 << 20,
                                        .free_bytes = [&] { ++asked; return free_now.load(); },
                                        .trim = [&] { ++trimmed; }});
  REQUIRE(eventually([&] { return asked >= 3; }));
  CHECK(trimmed == 0);  // 1 MB free: below the bar
  free_now = 8 << 20;
  REQUIRE(eventually([&] { return trimmed >= 2; }));  // again at the next interval
  caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
}

#if defined(__GLIBC__)
TEST_CASE("glibc: a trim hands a large freed heap block's pages back") {
  // Blocks of 8 MB come from the heap once the threshold is above them (as after glibc raised
  // it); a small block allocated after them keeps the heap's top from shrinking by itself.
  REQUIRE(mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1);
  REQUIRE(mallopt(M_TRIM_THRESHOLD, 64 << 20) == 1);
  std::vector<char*> blocks;
  for (int i = 0; i < 4; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(8 << 20)));
    REQUIRE(blocks.back() != nullptr);
    std::memset(blocks.back(), 1, 8 << 20);
  }
  char* pin = static_cast<char*>(std::malloc(64));
  const long held = resident_kb();
  for (char* b : blocks) std::free(b);
  CHECK(mallinfo2().fordblks >= size_t{32} << 20);
  CHECK(resident_kb() > held - 8 * 1024);  // freed, but still resident
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto keeper = spawn_heap_keeper(sys, {.interval = 10ms});
  CHECK(eventually([&] { return resident_kb() < held - 24 * 1024; }));
  caf::anon_send_exit(keeper, caf::exit_reason::user_shutdown);
  std::free(pin);
}
#endif
