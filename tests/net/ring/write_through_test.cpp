// A plain connection (net/connection_manager.cpp) writes a small message at once when nothing of its
// own is in flight, and leaves it behind a big one still being written; it reads ahead, handing
// BASP what one read brought in as BASP asks for it. Between two tasks on one host its bytes go
// through shared memory rings instead (net/ring/ring_link.hpp), each 1 MiB, which a big message
// fills many times over. Either way, messages sent back to back from one handler, big and small
// mixed, or hundreds of small ones that arrive in one read, come whole and in order.
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "graph/platform/time_scale.hpp"
#include "net/middleman.hpp"
#include "net/ring/ring_link.hpp"
#include "test_util/loop_config.hpp"

using namespace caflow;
using caflow::testing::loop_config;
using namespace std::chrono_literals;

namespace {

using fire_atom = caf::atom_constant<caf::atom("fire")>;
using report_atom = caf::atom_constant<caf::atom("report")>;
constexpr caf::atom_value collector_role = caf::atom("cf_wtest");

// Sizes in the order they are sent. Mixed: big ones far beyond a loopback socket's buffer, so
// the stream is still writing one when the next small one is flushed. Small: many more than the
// stream's reads per readable event, so one read brings in more than that event hands out.
std::vector<size_t> sizes(bool mixed) {
  std::vector<size_t> out;
  if (!mixed) return std::vector<size_t>(300, 24);  // all of them within one read
  for (int round = 0; round < 20; ++round) {
    out.push_back(8 << 20);
    for (int i = 0; i < 5; ++i) out.push_back(16 + static_cast<size_t>(i));
    out.push_back(100 << 10);
    out.push_back(64 << 10);
  }
  return out;
}

// Each message's bytes say which message it is, so a piece of another shows.
std::string payload(int32_t seq, size_t n) {
  return std::string(n, static_cast<char>('a' + seq % 26));
}

// As a server's, but without heartbeats: no other traffic comes to read what was left unread.
// `rings`: whether same-host rings may carry the bytes (TCP alone otherwise). `busy_poll`: how
// long the loop polls after its actors last ran (0: never, and then it takes no rings).
struct quiet_config : loop_config {
  explicit quiet_config(bool rings, std::chrono::microseconds busy_poll = default_busy_poll)
      : loop_config(busy_poll, {.heartbeat_interval = std::chrono::hours(1),
                                .timeout = std::chrono::hours(2)}) {
    set("caflow.same-host-rings", rings);
  }
};

struct arrivals {
  std::vector<int32_t> order;
  std::vector<bool> intact;
};

// `stall`: the first message holds the receiving loop for a while (actors run on it), so what
// follows piles up in the socket and comes in with one read.
caf::behavior collector(caf::stateful_actor<arrivals>* self, bool mixed, bool stall) {
  return {
      [self, mixed, stall](int32_t seq, const std::string& bytes) {
        if (stall && self->state.order.empty()) std::this_thread::sleep_for(200ms);
        const auto expected = sizes(mixed);
        const bool known = seq >= 0 && static_cast<size_t>(seq) < expected.size();
        self->state.order.push_back(seq);
        self->state.intact.push_back(known && bytes == payload(seq, expected[seq]));
      },
      [self](report_atom) { return caf::make_message(self->state.order, self->state.intact); },
  };
}

// Sends sizes(mixed) from one handler of one system to a collector in another, over loopback,
// and checks what came.
void send_and_check(bool mixed, bool stall, bool rings,
                    std::chrono::microseconds receiver_polls = default_busy_poll) {
  const uint64_t rings_before = ring_stats().rings_written.load();
  const uint64_t bells_before = ring_stats().doorbells.load();
  quiet_config cfg_receiver(rings, receiver_polls), cfg_sender(rings);
  caf::actor_system receiver{cfg_receiver}, sender{cfg_sender};
  auto collect = receiver.spawn(collector, mixed, stall);
  announce_role(receiver, collector_role, caf::actor_cast<caf::strong_actor_ptr>(collect));
  auto port = open_task_port(receiver, {"127.0.0.1", 0});
  REQUIRE_MESSAGE(port.ok(), port.get_status().to_string());
  auto found = find_remote_role(sender, {"127.0.0.1", *port}, collector_role, scaled(10000ms));
  REQUIRE_MESSAGE(found.ok(), found.get_status().to_string());
  const auto remote = caf::actor_cast<caf::actor>(*found);

  // All from one handler on the sender's loop: every flush of the burst comes before the loop
  // next polls, so the socket is still busy with the big ones.
  auto burst = sender.spawn(
      [remote, mixed](caf::event_based_actor* self, int) -> caf::behavior {
        return {[self, remote, mixed](fire_atom) {
          const auto all = sizes(mixed);
          for (size_t i = 0; i < all.size(); ++i)
            self->send(remote, static_cast<int32_t>(i), payload(static_cast<int32_t>(i), all[i]));
        }};
      },
      0);
  caf::anon_send(burst, fire_atom::value);

  const size_t n = sizes(mixed).size();
  std::vector<int32_t> order;
  std::vector<bool> intact;
  caf::scoped_actor self{receiver};
  const auto until = std::chrono::steady_clock::now() + scaled(20000ms);
  while (order.size() < n && std::chrono::steady_clock::now() < until) {
    self->request(collect, scaled(10000ms), report_atom::value)
        .receive(
            [&](std::vector<int32_t>& o, std::vector<bool>& ok) {
              order = std::move(o);
              intact = std::move(ok);
            },
            [&](caf::error& e) { FAIL(receiver.render(e)); });
    if (order.size() < n) std::this_thread::sleep_for(20ms);
  }
  REQUIRE(order.size() == n);
  for (size_t i = 0; i < n; ++i) {
    CAPTURE(i);
    CHECK(order[i] == static_cast<int32_t>(i));
    CHECK(intact[i]);
  }
  // Both directions of the one connection, or neither: a process whose loop does not
  // busy-poll takes no rings.
  const bool ringed = rings && receiver_polls.count() > 0;
  CHECK(ring_stats().rings_written.load() - rings_before == (ringed ? 2u : 0u));
  // A reader whose poller stops at once sleeps between messages, and is rung.
  if (ringed && receiver_polls < std::chrono::microseconds(10))
    CHECK(ring_stats().doorbells.load() > bells_before);
  caf::anon_send_exit(burst, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(collect, caf::exit_reason::user_shutdown);
}

}  // namespace

TEST_CASE("big and small messages sent back to back arrive whole and in order") {
  SUBCASE("over TCP") { send_and_check(true, false, false); }
  SUBCASE("through rings") { send_and_check(true, false, true); }
}

TEST_CASE("hundreds of small messages that come in one read are all handed to BASP") {
  SUBCASE("over TCP") { send_and_check(false, true, false); }
  SUBCASE("through rings") { send_and_check(false, true, true); }
}

TEST_CASE("a ring's reader whose loop stops polling at once is woken by doorbells") {
  send_and_check(true, false, true, std::chrono::microseconds(1));
}

TEST_CASE("a process whose loop does not busy-poll takes no rings: TCP both ways") {
  send_and_check(true, false, true, std::chrono::microseconds(0));
}
