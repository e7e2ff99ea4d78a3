// The actor clock of servers (net/loop/deadline_clock.hpp): its timer thread sleeps until the
// earliest deadline, so a deadline set earlier than the one it sleeps until must wake it, due
// events go out in deadline order, and it stops at once whatever is still scheduled.
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "graph/platform/time_scale.hpp"
#include "net/loop/deadline_clock.hpp"
#include "test_util/loop_config.hpp"

using namespace caflow;
using caflow::testing::loop_config;
using namespace std::chrono_literals;

namespace {

// Sends each (value, delay) it is given to `to` after that delay.
caf::behavior delayer(caf::event_based_actor* self, int) {
  return {[self](int32_t v, int32_t delay_ms, const caf::actor& to) {
    self->delayed_send(to, std::chrono::milliseconds(delay_ms), v);
  }};
}

}  // namespace

TEST_CASE("a deadline earlier than the one the clock sleeps until wakes it") {
  loop_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto d = sys.spawn(delayer, 0);
  self->send(d, int32_t{1}, int32_t{60'000}, caf::actor{self});  // the clock now sleeps for a minute
  std::this_thread::sleep_for(50ms);
  const auto start = std::chrono::steady_clock::now();
  self->send(d, int32_t{2}, int32_t{20}, caf::actor{self});
  int32_t got = 0;
  self->receive([&](int32_t v) { got = v; }, caf::after(scaled(5s)) >> [] {});
  CHECK(got == 2);
  CHECK(std::chrono::steady_clock::now() - start < scaled(2s));
  caf::anon_send_exit(d, caf::exit_reason::user_shutdown);
}

TEST_CASE("delayed messages arrive in the order of their deadlines") {
  loop_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto d = sys.spawn(delayer, 0);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> delay(0, 60);
  constexpr int n = 200;
  // Value = delay * 1000 + index. All are sent within a few ms, so a message may overtake
  // another only if their delays are that close.
  std::vector<int32_t> arrived;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t ms = delay(rng);
    self->send(d, ms * 1000 + i, ms, caf::actor{self});
  }
  for (int i = 0; i < n; ++i)
    self->receive([&](int32_t v) { arrived.push_back(v); },
                  caf::after(scaled(5s)) >> [&] { FAIL("a delayed message did not arrive"); });
  REQUIRE(arrived.size() == static_cast<size_t>(n));
  for (size_t i = 1; i < arrived.size(); ++i) {
    const int32_t before = arrived[i - 1] / 1000, now = arrived[i] / 1000;
    CHECK_MESSAGE(before < now + 10, "delay ", before, " ms arrived after delay ", now, " ms");
  }
  caf::anon_send_exit(d, caf::exit_reason::user_shutdown);
}

TEST_CASE("a request times out at its own deadline, not at a later one set before it") {
  loop_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto echo = sys.spawn([](int) -> caf::behavior { return {[](int32_t v) { return v; }}; }, 0);
  auto silent = sys.spawn([](int) -> caf::behavior {
    return {[](int32_t) -> caf::result<int32_t> { return caf::delegated<int32_t>{}; }};
  }, 0);
  // Answered requests under a long timeout: the clock then sleeps until a minute from now.
  for (int32_t i = 0; i < 10; ++i) {
    int32_t got = -1;
    self->request(echo, std::chrono::minutes(1), i)
        .receive([&](int32_t v) { got = v; }, [&](caf::error& e) { FAIL(sys.render(e)); });
    CHECK(got == i);
  }
  bool timed_out = false;
  const auto start = std::chrono::steady_clock::now();
  self->request(silent, 50ms, int32_t{0})
      .receive([](int32_t) {}, [&](caf::error& e) { timed_out = e == caf::sec::request_timeout; });
  CHECK(timed_out);
  CHECK(std::chrono::steady_clock::now() - start < scaled(2s));
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(silent, caf::exit_reason::user_shutdown);
}

TEST_CASE("the clock's thread stops at once with an hour of deadlines still scheduled") {
  loop_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  deadline_clock clock;
  std::thread timer([&] { clock.run_dispatch_loop(); });
  const auto hour = clock.now() + std::chrono::hours(1);
  for (int i = 0; i < 10; ++i)
    clock.schedule_message(hour, caf::actor_cast<caf::strong_actor_ptr>(self),
                           caf::make_mailbox_element(nullptr, caf::make_message_id(), {},
                                                     int32_t{i}));
  clock.schedule_message(clock.now() + 10ms, caf::actor_cast<caf::strong_actor_ptr>(self),
                         caf::make_mailbox_element(nullptr, caf::make_message_id(), {},
                                                   int32_t{99}));
  int32_t got = 0;
  self->receive([&](int32_t v) { got = v; }, caf::after(scaled(5s)) >> [] {});
  CHECK(got == 99);
  const auto start = std::chrono::steady_clock::now();
  clock.cancel_dispatch_loop();
  timer.join();
  CHECK(std::chrono::steady_clock::now() - start < scaled(1s));
  clock.cancel_all();
}
