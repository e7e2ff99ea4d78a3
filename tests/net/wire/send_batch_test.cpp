// The values one pass of the executor sends to another process, held on its thread and sent as
// one message (net/wire/send_batch.hpp), and the rendezvous actor that takes such a batch apart
// (actors/rendezvous/rendezvous_actor.hpp): its own entry deposited, the others forwarded to their edges,
// anything malformed refused with the steps it names aborted.
#include "net/wire/send_batch.hpp"

#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/rendezvous/rendezvous_actor.hpp"
#include "kernels/framework/local_rendezvous.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/recv_future.hpp"
#include "test_util/two_task_master.hpp"

using namespace caflow;
using caflow::testing::check_error;
using namespace std::chrono_literals;

namespace {

// What a recording rendezvous actor got, message by message.
struct arrivals {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<std::string> kinds;  // "push", "shm" or "batch"
  std::vector<edge_batch> batches;

  void add(std::string kind) {
    std::lock_guard<std::mutex> lock(mu);
    kinds.push_back(std::move(kind));
    changed.notify_all();
  }
  std::vector<std::string> wait_for(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(changed.wait_for(lock, 10s, [&] { return kinds.size() >= n; }));
    return kinds;
  }
};

rendezvous_actor::behavior_type recorder(rendezvous_actor::pointer,
                                         std::shared_ptr<arrivals> log) {
  return {
      [log](cf_push_atom, const edge_value&) { log->add("push"); },
      [](cf_chunk_atom, const edge_chunk&) {},
      [log](cf_shm_atom, const edge_shm&) { log->add("shm"); },
      [log](cf_batch_atom, const edge_batch& b) {
        {
          std::lock_guard<std::mutex> lock(log->mu);
          log->batches.push_back(b);
        }
        log->add("batch");
      },
      [](cf_abort_atom, int64_t, const step_error&) {},
      [](cf_cleanup_atom, int64_t) {},
  };
}

edge_value value(int64_t step, std::string key, float v) {
  return edge_value{step, std::move(key), wire_tensor{tensor::scalar(v)}};
}

struct fixture {
  testing::two_tasks::test_config cfg;
  caf::actor_system sys{cfg};
  std::shared_ptr<arrivals> log = std::make_shared<arrivals>();
  rendezvous_actor sink = sys.spawn(recorder, log);
  ~fixture() { caf::anon_send_exit(sink, caf::exit_reason::user_shutdown); }
};

}  // namespace

TEST_CASE("send batch: nothing is held outside a scope") {
  fixture f;
  edge_value v = value(1, "a", 1.0f);
  CHECK_FALSE(send_batch::hold(f.sink, std::move(v)));
  CHECK(v.key == "a");  // not taken: the caller still has it to send
  CHECK_FALSE(send_batch::holding());
}

TEST_CASE("send batch: a scope's values go out as one message when it closes, in order") {
  fixture f;
  {
    const send_batch::scope outer;
    {
      const send_batch::scope inner;
      CHECK(send_batch::hold(f.sink, value(1, "a", 1.0f)));
      CHECK(send_batch::hold(f.sink, edge_shm{1, "s", 1, {4}, 9, 64, 16}));
      CHECK(send_batch::hold(f.sink, value(1, "b", 2.0f)));
    }
    CHECK(send_batch::holding());  // the inner scope does not send
    std::this_thread::sleep_for(50ms);
    std::lock_guard<std::mutex> lock(f.log->mu);
    CHECK(f.log->kinds.empty());
  }
  CHECK_FALSE(send_batch::holding());
  CHECK(f.log->wait_for(1) == std::vector<std::string>{"batch"});
  std::lock_guard<std::mutex> lock(f.log->mu);
  const edge_batch& b = f.log->batches.at(0);
  REQUIRE(b.values.size() == 2);
  CHECK(b.values[0].key == "a");
  CHECK(b.values[1].key == "b");
  CHECK(b.values[1].value.value.scalar_value<float>() == 2.0f);
  REQUIRE(b.shared.size() == 1);
  CHECK(b.shared[0].key == "s");
  CHECK(b.to.size() == 3);
}

TEST_CASE("send batch: one value goes as the plain message; flush sends at once") {
  fixture f;
  const send_batch::scope batch;
  CHECK(send_batch::hold(f.sink, value(1, "a", 1.0f)));
  send_batch::flush();
  CHECK(f.log->wait_for(1) == std::vector<std::string>{"push"});
  CHECK(send_batch::hold(f.sink, edge_shm{2, "s", 1, {4}, 9, 64, 16}));
  send_batch::flush();
  CHECK(f.log->wait_for(2) == std::vector<std::string>{"push", "shm"});
}

TEST_CASE("send batch: take hands one process's values to a reply, which hands them over") {
  fixture f;
  edge_batch taken;
  {
    const send_batch::scope batch;
    CHECK(send_batch::take(f.sys.node()).values.empty());  // nothing held yet
    CHECK(send_batch::hold(f.sink, value(3, "a", 1.0f)));
    CHECK(send_batch::hold(f.sink, value(3, "b", 2.0f)));
    CHECK(send_batch::take(caf::node_id{}).values.empty());  // another process: stays held
    CHECK(send_batch::holding());
    taken = send_batch::take(f.sys.node());
    CHECK_FALSE(send_batch::holding());
  }
  std::this_thread::sleep_for(50ms);
  {
    std::lock_guard<std::mutex> lock(f.log->mu);
    CHECK(f.log->kinds.empty());  // the closing scope had nothing left to send
  }
  REQUIRE(taken.values.size() == 2);
  CHECK(taken.values[0].key == "a");
  CHECK(taken.values[1].value.value.scalar_value<float>() == 2.0f);
  CHECK(taken.to.size() == 2);
  REQUIRE(send_batch::hand_over(std::move(taken), f.sys.node()).ok());
  CHECK(f.log->wait_for(1) == std::vector<std::string>{"batch"});
  {
    const send_batch::scope outside_none;  // and outside a scope take finds nothing
  }
  CHECK(send_batch::take(f.sys.node()).to.empty());
}

TEST_CASE("send batch: a batch carried by a reply goes only to an edge actor of this process") {
  fixture f;
  edge_batch empty;
  CHECK(send_batch::hand_over(std::move(empty), f.sys.node()).ok());  // nothing carried
  edge_batch here;
  here.to = {f.sink};
  here.values = {value(4, "a", 1.0f)};
  REQUIRE(send_batch::hand_over(std::move(here), f.sys.node()).ok());
  CHECK(f.log->wait_for(1) == std::vector<std::string>{"batch"});
  // Named by a peer for a process that is not this one, or for no actor at all: refused.
  edge_batch elsewhere;
  elsewhere.to = {f.sink};
  elsewhere.values = {value(5, "a", 1.0f)};
  check_error(send_batch::hand_over(std::move(elsewhere), caf::node_id{}),
              "a batch of 1 values came for an edge actor that is not in this process: refused");
  edge_batch nobody;
  nobody.values = {value(6, "a", 1.0f), value(6, "b", 2.0f)};
  nobody.to = {rendezvous_actor{}, f.sink};
  check_error(send_batch::hand_over(std::move(nobody), f.sys.node()),
              "a batch of 2 values came for an edge actor that is not in this process");
  std::this_thread::sleep_for(50ms);
  std::lock_guard<std::mutex> lock(f.log->mu);
  CHECK(f.log->kinds.size() == 1);  // the refused ones sent nothing
}

namespace {

// Two real edges of one task, "a" and "b", over one local rendezvous.
struct two_edges {
  testing::two_tasks::test_config cfg;
  caf::actor_system sys{cfg};
  std::shared_ptr<local_rendezvous> local = std::make_shared<local_rendezvous>();
  std::shared_ptr<finished_steps> finished = std::make_shared<finished_steps>();
  rendezvous_actor a = spawn_rendezvous_actor(sys, "a", local, finished, nullptr, 4);
  rendezvous_actor b = spawn_rendezvous_actor(sys, "b", local, finished, nullptr, 4);
  ~two_edges() {
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
  }
};

}  // namespace

TEST_CASE("a rendezvous actor deposits its entry of a batch and forwards the other's") {
  two_edges t;
  auto got_a = testing::recv_future(*t.local, "a", 7);
  auto got_b = testing::recv_future(*t.local, "b", 7);
  edge_batch batch;
  batch.to = {t.b, t.a};
  batch.values = {value(7, "b", 20.0f), value(7, "a", 10.0f)};
  caf::anon_send(t.a, cf_batch_atom::value, std::move(batch));
  auto a = testing::await_recv(got_a, 7);
  auto b = testing::await_recv(got_b, 7);
  REQUIRE_MESSAGE(a.ok(), a.get_status().to_string());
  REQUIRE_MESSAGE(b.ok(), b.get_status().to_string());
  CHECK(a->scalar_value<float>() == 10.0f);
  CHECK(b->scalar_value<float>() == 20.0f);
}

TEST_CASE("a batch whose lists disagree, or that names no actor, aborts the steps it names") {
  two_edges t;
  SUBCASE("lists of different lengths") {
    auto got = testing::recv_future(*t.local, "b", 8);
    edge_batch batch;
    batch.to = {t.a};
    batch.values = {value(8, "a", 1.0f), value(8, "b", 2.0f)};
    caf::anon_send(t.a, cf_batch_atom::value, std::move(batch));
    auto r = testing::await_recv(got, 8);
    check_error(r, "edge 'a' received a batch of 2 values for 1 edges");
  }
  SUBCASE("an entry without an actor") {
    auto got = testing::recv_future(*t.local, "b", 9);
    edge_batch batch;
    batch.to = {t.a, rendezvous_actor{}};
    batch.values = {value(9, "a", 1.0f), value(9, "b", 2.0f)};
    caf::anon_send(t.a, cf_batch_atom::value, std::move(batch));
    auto r = testing::await_recv(got, 9);
    check_error(r, "sends the value of edge 'b' to an actor of another process: refused");
  }
}
