// Actors of a system whose scheduler is the network loop (net/loop/loop_scheduler.hpp) run on the
// middleman's thread, keep CAF's semantics (order, request timeouts, delayed messages, an actor
// with a long mailbox yielding to others), and the system shuts down cleanly.
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/network/multiplexer.hpp>
#include <pthread.h>
#include <time.h>

#include <chrono>
#include <thread>
#include <vector>

#include "graph/platform/time_scale.hpp"
#include "net/loop/loop_scheduler.hpp"
#include "net/middleman.hpp"
#include "test_util/loop_config.hpp"

using namespace caflow;
using caflow::testing::loop_config;
using namespace std::chrono_literals;

namespace {

using where_atom = caf::atom_constant<caf::atom("where")>;
using count_atom = caf::atom_constant<caf::atom("count")>;

// Tells which thread it runs on, and counts what it was sent. (`start` is there because CAF
// 0.17 dereferences a null argument tuple when a spawned function takes no argument.)
caf::behavior reporter(caf::stateful_actor<int>* self, int start) {
  self->state = start;
  return {
      [](where_atom) { return std::hash<std::thread::id>{}(std::this_thread::get_id()); },
      [self](int32_t) { ++self->state; },
      [self](count_atom) { return self->state; },
  };
}

size_t tag(std::thread::id id) { return std::hash<std::thread::id>{}(id); }

}  // namespace

TEST_CASE("scheduled actors run on the middleman's event loop") {
  loop_config cfg;
  caf::actor_system sys{cfg};
  const size_t loop_thread = tag(sys.middleman().backend().thread_id());
  caf::scoped_actor self{sys};
  std::vector<caf::actor> actors;
  for (int i = 0; i < 3; ++i) actors.push_back(sys.spawn(reporter, 0));
  for (auto& a : actors) {
    size_t where = 0;
    self->request(a, scaled(5s), where_atom::value)
        .receive([&](size_t w) { where = w; }, [&](caf::error& e) { FAIL(sys.render(e)); });
    CHECK(where == loop_thread);
    CHECK(where != tag(std::this_thread::get_id()));
  }
  for (auto& a : actors) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

TEST_CASE("an actor with a mailbox longer than one turn on the loop handles all of it, in order") {
  loop_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto busy = sys.spawn(reporter, 0);
  auto other = sys.spawn(reporter, 0);
  constexpr int n = 10000;  // far more than one turn on the loop
  for (int i = 0; i < n; ++i) self->send(busy, int32_t{i});
  self->send(other, int32_t{1});
  int other_count = -1, busy_count = -1;
  self->request(other, scaled(5s), count_atom::value)
      .receive([&](int c) { other_count = c; }, [&](caf::error& e) { FAIL(sys.render(e)); });
  self->request(busy, scaled(5s), count_atom::value)
      .receive([&](int c) { busy_count = c; }, [&](caf::error& e) { FAIL(sys.render(e)); });
  CHECK(other_count == 1);
  CHECK(busy_count == n);  // the request came after all n: in order
  caf::anon_send_exit(busy, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(other, caf::exit_reason::user_shutdown);
}

TEST_CASE("request timeouts and delayed messages fire from the clock thread") {
  loop_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  // Never answers: its request must time out.
  auto silent = sys.spawn([](int) -> caf::behavior {
    return {[](where_atom) -> caf::result<size_t> { return caf::delegated<size_t>{}; }};
  }, 0);
  bool timed_out = false;
  const auto start = std::chrono::steady_clock::now();
  self->request(silent, 50ms, where_atom::value)
      .receive([](size_t) {}, [&](caf::error& e) { timed_out = e == caf::sec::request_timeout; });
  CHECK(timed_out);
  CHECK(std::chrono::steady_clock::now() - start < scaled(5s));
  // A delayed message from an actor on the loop to this thread.
  auto delayer = sys.spawn([](caf::event_based_actor* a, int) -> caf::behavior {
    return {[a](int32_t v, const caf::actor& to) { a->delayed_send(to, 20ms, v + 1); }};
  }, 0);
  self->send(delayer, int32_t{41}, caf::actor{self});
  int32_t got = 0;
  self->receive([&](int32_t v) { got = v; }, caf::after(scaled(5s)) >> [] {});
  CHECK(got == 42);
  caf::anon_send_exit(silent, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(delayer, caf::exit_reason::user_shutdown);
}

TEST_CASE("a system whose actors are still running shuts down") {
  // ~actor_system waits for its actors, which need the loop to handle their exit.
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    {
      loop_config cfg;
      caf::actor_system sys{cfg};
      caf::scoped_actor self{sys};
      auto a = sys.spawn(reporter, 0);
      for (int i = 0; i < 5; ++i) self->send(a, int32_t{i});
      int count = 0;
      self->request(a, scaled(5s), count_atom::value)
          .receive([&](int c) { count = c; }, [&](caf::error& e) { FAIL(sys.render(e)); });
      CHECK(count == 5);
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
    CHECK(std::chrono::steady_clock::now() - start < scaled(5s));
  }
}

namespace {

// CPU time the thread `t` of this process spends during `d`, in milliseconds.
double cpu_ms_during(pthread_t t, std::chrono::milliseconds d) {
  clockid_t cid;
  REQUIRE(pthread_getcpuclockid(t, &cid) == 0);
  auto read = [&] {
    timespec ts{};
    clock_gettime(cid, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  };
  const double before = read();
  std::this_thread::sleep_for(d);
  return read() - before;
}

// The loop thread's pthread handle, asked of an actor that runs there.
pthread_t loop_thread_of(caf::actor_system& sys, caf::scoped_actor& self) {
  auto a = sys.spawn([](int) -> caf::behavior {
    return {[](where_atom) { return static_cast<uint64_t>(pthread_self()); }};
  }, 0);
  uint64_t t = 0;
  self->request(a, scaled(5s), where_atom::value)
      .receive([&](uint64_t v) { t = v; }, [&](caf::error& e) { FAIL(sys.render(e)); });
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  return static_cast<pthread_t>(t);
}

// CPU a sleeping loop may still use in 200 ms (timer and heartbeat wake-ups). A polling loop uses
// most of those 200 ms. Under TSan every wake-up costs several times more, hence the scale.
constexpr double sleeping_cpu_ms = 5.0 * time_scale;

}  // namespace

TEST_CASE("after its actors ran and its busy-poll window passed, the loop sleeps") {
  loop_config cfg{std::chrono::microseconds(300ms)};
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  const pthread_t loop = loop_thread_of(sys, self);
  // Inside the window it keeps turning, using CPU with nothing to do; how much depends on the
  // machine's load, so it is reported, not asserted (bench/busy_poll_cpu.cpp measures a poller).
  MESSAGE("the loop's CPU in 100 ms of its busy-poll window: ", cpu_ms_during(loop, 100ms), " ms");
  std::this_thread::sleep_for(scaled(400ms));
  // Past the window it sleeps in epoll_wait.
  CHECK(cpu_ms_during(loop, 200ms) < sleeping_cpu_ms);
}

TEST_CASE("with busy polling off, the loop sleeps as soon as its actors are done") {
  loop_config cfg{std::chrono::microseconds(0)};
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  const pthread_t loop = loop_thread_of(sys, self);
  CHECK(cpu_ms_during(loop, 200ms) < sleeping_cpu_ms);
}

TEST_CASE("an actor asked from another actor system in this process runs on its own loop") {
  // CAF 0.17 schedules an idle receiver on its sender's execution unit. Each system here runs
  // its actors on its own loop, whoever sends: an actor of `a` run on b's loop could pin a's
  // logger to b's thread (a spawn does), and a's destructor would wait for that thread forever.
  loop_config cfg_a, cfg_b;
  caf::actor_system a{cfg_a};
  const size_t loop_a = tag(a.middleman().backend().thread_id());
  // Where `actor` says it runs, asked by `self`.
  auto where = [](caf::scoped_actor& self, const caf::actor& actor) {
    size_t at = 0;
    self->request(actor, scaled(5s), where_atom::value)
        .receive([&](size_t w) { at = w; },
                 [&](caf::error& e) { FAIL(self->home_system().render(e)); });
    return at;
  };
  {
    caf::actor_system b{cfg_b};
    const size_t loop_b = tag(b.middleman().backend().thread_id());
    REQUIRE(loop_a != loop_b);
    auto in_a = a.spawn(reporter, 0);
    // A blocking caller of b: its execution unit is b's scheduler.
    caf::scoped_actor from_b{b};
    for (int i = 0; i < 5; ++i) CHECK(where(from_b, in_a) == loop_a);
    // An actor of b, running on b's loop, asks it too: it answers from a's loop.
    auto asker = b.spawn([in_a](caf::event_based_actor* self, int) -> caf::behavior {
      return {[self, in_a](where_atom) -> caf::result<size_t> {
        auto promise = self->make_response_promise<size_t>();
        self->request(in_a, caf::infinite, where_atom::value)
            .then([promise](size_t w) mutable { promise.deliver(w); });
        return promise;
      }};
    }, 0);
    CHECK(where(from_b, asker) == loop_a);
    caf::anon_send_exit(asker, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(in_a, caf::exit_reason::user_shutdown);
  }
  // b is gone, and a still schedules its actors on its own loop.
  caf::scoped_actor self{a};
  auto again = a.spawn(reporter, 0);
  CHECK(where(self, again) == loop_a);
  caf::anon_send_exit(again, caf::exit_reason::user_shutdown);
}

TEST_CASE("the loop's poller yields its core every few polls, but not while actors wait") {
  for (unsigned polls = 1; polls <= 4 * polls_per_yield; ++polls) {
    CAPTURE(polls);
    CHECK(busy_poller_yields(polls, 0) == (polls % polls_per_yield == 0));
    CHECK_FALSE(busy_poller_yields(polls, 1));
    CHECK_FALSE(busy_poller_yields(polls, 7));
  }
}

TEST_CASE("threads outside the loop reach its actors while it polls and after it fell asleep") {
  // Messages from other threads reach a polling loop through memory (net/loop/loop_inbox.hpp) and a
  // sleeping one through its pipe. Pauses longer than the 50 us window let the poller stop
  // between messages, so both paths and the moment between them are taken, many times.
  loop_config cfg{std::chrono::microseconds(50)};
  caf::actor_system sys{cfg};
  auto counter = sys.spawn(reporter, 0);
  constexpr int threads = 3, per_thread = 400;
  std::vector<std::thread> senders;
  for (int t = 0; t < threads; ++t)
    senders.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        caf::anon_send(counter, int32_t{i});
        if ((i + t) % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(20 * (i % 10)));
      }
    });
  for (auto& s : senders) s.join();
  caf::scoped_actor self{sys};
  int count = 0;
  self->request(counter, scaled(10s), count_atom::value)
      .receive([&](int c) { count = c; }, [&](caf::error& e) { FAIL(sys.render(e)); });
  CHECK(count == threads * per_thread);
  // One at a time with the loop asleep in between: each needs a wake-up of its own.
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    self->request(counter, scaled(5s), count_atom::value)
        .receive([&](int c) { count = c; }, [&](caf::error& e) { FAIL(sys.render(e)); });
  }
  CHECK(count == threads * per_thread);
  caf::anon_send_exit(counter, caf::exit_reason::user_shutdown);
}
