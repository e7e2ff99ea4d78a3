// The rendezvous actor of one edge, through its typed handle: the room it keeps for steps'
// values (max_pending_steps), which steps that finished on the task free without a message, and
// so do stale values of steps that never ran there (their master was lost before it asked).
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "actors/rendezvous_actor.hpp"
#include "kernels/local_rendezvous.hpp"
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

  explicit edge(std::chrono::milliseconds stale_after)
      : endpoint(spawn_rendezvous_actor(sys, "k", local, finished, 2, stale_after)) {}
  ~edge() { caf::anon_send_exit(endpoint, caf::exit_reason::user_shutdown); }

  void push(int64_t step) {
    caf::anon_send(endpoint, cf_push_atom::value,
                   edge_value{step, "k", wire_tensor{tensor::scalar(float(step))}});
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
