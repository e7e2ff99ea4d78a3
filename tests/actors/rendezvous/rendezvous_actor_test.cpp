// The rendezvous actor of one edge, through its typed handle: the room it keeps for steps'
// values (max_pending_steps), which steps that finished on the task free without a message, and
// so do stale values of steps that never ran there (their master was lost before it asked); and
// an abort, whose root cause reaches the step's _Recv field by field.
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "actors/rendezvous/rendezvous_actor.hpp"
#include "kernels/framework/local_rendezvous.hpp"
#include "net/errors.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/recv_future.hpp"
#include "test_util/two_task_master.hpp"

using namespace caflow;
using caflow::testing::check_error;
using namespace std::chrono_literals;

namespace {

// One rendezvous actor of edge "k" with room for 2 steps' values, over a local rendezvous.
struct edge {
  testing::two_tasks::test_config cfg;
  caf::actor_system sys{cfg};
  std::shared_ptr<local_rendezvous> local = std::make_shared<local_rendezvous>();
  std::shared_ptr<finished_steps> finished = std::make_shared<finished_steps>();
  rendezvous_actor endpoint;

  // `graphs`: how many registered graphs receive through the edge (null: one).
  explicit edge(std::chrono::milliseconds stale_after,
                std::shared_ptr<const std::atomic<int>> graphs = nullptr)
      : endpoint(spawn_rendezvous_actor(sys, "k", local, finished, nullptr, 2, stale_after,
                                        std::move(graphs))) {}
  ~edge() { caf::anon_send_exit(endpoint, caf::exit_reason::user_shutdown); }

  void push(int64_t step) {
    caf::anon_send(endpoint, cf_push_atom::value,
                   edge_value{step, "k", wire_tensor{tensor::scalar(float(step))}});
  }

  // What the step's _Recv gets when the step is aborted with `root_cause` before any value.
  status abort(int64_t step, const step_error& root_cause) {
    auto got = testing::recv_future(*local, "k", step);
    caf::anon_send(endpoint, cf_abort_atom::value, step, root_cause);
    auto r = testing::await_recv(got, step);
    REQUIRE_FALSE(r.ok());
    return r.get_status();
  }

  // What the step's _Recv gets (its value may have come before, or come with `push_it`).
  status_or<tensor> receive(int64_t step, bool push_it) {
    auto got = testing::recv_future(*local, "k", step);
    if (push_it) push(step);
    return testing::await_recv(got, step);
  }
};

}  // namespace

TEST_CASE("an edge full of values of steps that never ran here refuses the next step") {
  edge e(1h);
  e.push(1);
  e.push(2);
  auto third = e.receive(3, true);
  check_error(third, "refuses the value of step 3");
  check_error(third, "max_pending_steps_per_edge = 2");
  // Steps 1 and 2 keep their values.
  auto first = e.receive(1, false);
  REQUIRE_MESSAGE(first.ok(), first.get_status().to_string());
  CHECK(first->scalar_value<float>() == 1.0f);
}

TEST_CASE("an edge that several graphs receive through keeps room for each graph's steps") {
  // Three masters registered graphs with this edge (between-graph replication: every worker's
  // client sends through the same ps edge): 2 steps each.
  auto graphs = std::make_shared<std::atomic<int>>(3);
  edge e(1h, graphs);
  for (int64_t step = 1; step <= 6; ++step) e.push(step);
  auto seventh = e.receive(7, true);
  check_error(seventh, "refuses the value of step 7");
  check_error(seventh, "max_pending_steps_per_edge = 2 for each of 3 graphs");
  // A fourth graph makes room for two more.
  graphs->store(4);
  auto eighth = e.receive(8, true);
  REQUIRE_MESSAGE(eighth.ok(), eighth.get_status().to_string());
  CHECK(eighth->scalar_value<float>() == 8.0f);
  for (int64_t step = 1; step <= 6; ++step) {
    auto kept = e.receive(step, false);
    REQUIRE_MESSAGE(kept.ok(), kept.get_status().to_string());
    CHECK(kept->scalar_value<float>() == static_cast<float>(step));
  }
}

TEST_CASE("steps finished here free their room without a cleanup message") {
  edge e(1h);
  for (int64_t step = 1; step <= 2; ++step) {
    auto got = e.receive(step, true);
    REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
    e.finished->add(step);  // as a worker does when the step succeeded here
    e.local->cleanup_step(step);
  }
  auto third = e.receive(3, true);
  REQUIRE_MESSAGE(third.ok(), third.get_status().to_string());
  CHECK(third->scalar_value<float>() == 3.0f);
}

TEST_CASE("values older than stale_after are dropped when the room is needed") {
  edge e(100ms);
  e.push(1);
  e.push(2);
  std::this_thread::sleep_for(200ms);
  auto third = e.receive(3, true);
  REQUIRE_MESSAGE(third.ok(), third.get_status().to_string());
  CHECK(third->scalar_value<float>() == 3.0f);
  // Their steps are aborted here, naming the edge and why.
  auto first = e.receive(1, false);
  check_error(first, "edge 'k' dropped its value of step 1");
  check_error(first, "master was lost");
}

TEST_CASE("an abort fails the step's _Recv with the code, message, node and device sent") {
  edge e(1h);
  const step_error sent{static_cast<uint8_t>(error_code::resource_exhausted),
                        "node 'mm' (MatMul) on /job:worker/replica:0/task:1/device:CPU:0: OOM",
                        "mm", "/job:worker/replica:0/task:1/device:CPU:0",
                        "/job:worker/replica:0/task:1"};
  const status got = e.abort(4, sent);
  CHECK(got.code() == error_code::resource_exhausted);
  CHECK(got.message() == sent.message);
  REQUIRE(got.source());
  CHECK(got.source()->node == "mm");
  CHECK(got.source()->device == "/job:worker/replica:0/task:1/device:CPU:0");
  CHECK(got.source()->task == "/job:worker/replica:0/task:1");
  // A root cause that names no node arrives without a source.
  const status plain =
      e.abort(5, {static_cast<uint8_t>(error_code::unavailable), "lost", {}, {}, {}});
  CHECK(plain.code() == error_code::unavailable);
  CHECK(plain.message() == "lost");
  CHECK_FALSE(plain.source());
  // The other steps keep their room.
  auto next = e.receive(6, true);
  REQUIRE_MESSAGE(next.ok(), next.get_status().to_string());
  CHECK(next->scalar_value<float>() == 6.0f);
}

TEST_CASE("an abort whose code is no error code fails the _Recv with a clear internal error") {
  edge e(1h);
  const auto beyond = static_cast<uint8_t>(static_cast<uint8_t>(last_error_code) + 1);
  for (uint8_t code : {uint8_t{0}, beyond, uint8_t{255}}) {
    CAPTURE(unsigned{code});
    const status got = e.abort(
        10 + code,
        {code, "forged", "n", "/job:a/replica:0/task:0/device:CPU:0", "/job:a/replica:0/task:0"});
    CHECK(got.code() == error_code::internal);
    check_error(got, "an error came with the invalid code " + std::to_string(code));
    check_error(got, "'forged'");
    REQUIRE(got.source());
    CHECK(got.source()->node == "n");
  }
}
