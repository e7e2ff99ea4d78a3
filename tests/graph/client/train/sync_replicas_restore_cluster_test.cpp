// Synchronous replicas when a restore moves the global step back while the ps keeps its
// accumulators and token queue (1 ps, 2 workers, between-graph, in process): the gradient a
// worker summed before the restore must not reach the first update after it, and a worker still
// waiting for a token from before continues at the restored step.
#include <doctest/doctest.h>

#include <chrono>
#include <future>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/global_step.hpp"
#include "graph/client/train/gradient_descent_optimizer.hpp"
#include "graph/client/train/replica_device_setter.hpp"
#include "graph/client/train/sync_replicas_optimizer.hpp"
#include "graph/client/train/variables.hpp"
#include "test_util/in_process_cluster.hpp"

using namespace caflow;
using namespace std::chrono_literals;

namespace {

// loss = (w - target)^2 / 2: the gradient is w - target. SGD with rate 1/2.
struct replica {
  scope root;
  train::variable w, step;
  train::gradient_descent_optimizer sgd{0.5};
  train::sync_replicas_optimizer sync;
  operation train_op, init, restore;
  output read_w, read_step, local_step, summed;

  replica(int task, float target)
      : root(scope::new_root().with_device_function(train::replica_device_setter(
            {.ps_tasks = 1, .worker_device = "/job:worker/task:" + std::to_string(task)}))),
        sync(sgd, {.replicas_to_aggregate = 2,
                   .is_chief = task == 0,
                   .local_device = "/job:worker/task:" + std::to_string(task)}) {
    w = train::create_variable(root, "w", ops::constant(root, 0.0f));
    step = train::create_global_step(root);
    auto loss = ops::mul(root, ops::constant(root, 0.5f),
                         ops::square(root, ops::sub(root, w, ops::constant(root, target))));
    auto op = sync.minimize(root, loss, step, {w});
    REQUIRE_MESSAGE(op.ok(), op.get_status().to_string());
    train_op = *op;
    init = train::global_variables_initializer(root, train::variable_set{w, step});
    // What restoring a checkpoint of step 1 with w = 8 does to the ps.
    auto back_w = ops::assign(root.with_op_name("restore_w"), w.ref, ops::constant(root, 8.0f));
    auto back_step = ops::assign(root.with_op_name("restore_step"), step.ref,
                                 ops::constant(root, int64_t{1}));
    restore = ops::group(root.with_op_name("restore"),
                         {operation{back_w.node, {back_w.type}}, operation{back_step.node, {back_step.type}}});
    read_w = ops::identity(root.with_op_name("read_w"), w);
    read_step = ops::identity(root.with_op_name("read_step"), step);
    local_step = ops::identity(root.with_op_name("read_local_step"), sync.local_step());
    // The ps's accumulator of w's gradients, by its shared name: how many it holds.
    auto acc = ops::conditional_accumulator(root.with_device("/job:ps/task:0").with_op_name("acc"),
                                            dtype::float32, root.shape_of(w.ref),
                                            {.container = {}, .shared_name = "sync_replicas/w/grad_accum"});
    summed = ops::accumulator_num_accumulated(root.with_op_name("summed"), acc);
  }
};

template <class T>
T fetch(session& sess, const output& o) {
  auto out = sess.run({o});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  return out->at(0).scalar_value<T>();
}

// One synchronous update: the chief's step and the other worker's, side by side.
void sync_step(session& chief_sess, replica& chief, session& other_sess, replica& other) {
  auto worker = std::async(std::launch::async, [&] { return other_sess.run_targets({other.train_op}); });
  const status c = chief_sess.run_targets({chief.train_op});
  REQUIRE_MESSAGE(c.ok(), c.to_string());
  REQUIRE(worker.wait_for(20s) == std::future_status::ready);
  const status o = worker.get();
  REQUIRE_MESSAGE(o.ok(), o.to_string());
}

}  // namespace

TEST_CASE("after a restore on a ps that kept its accumulators, the first update uses only fresh gradients") {
  auto cluster = caflow::testing::start_in_process_cluster(1, 2);
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  const auto& servers = *cluster;  // ps 0, worker 0, worker 1

  replica chief(0, 2.0f), other(1, 6.0f);
  session s0(chief.root, {.target = servers[1]->target(), .operation_timeout = 20s});
  session s1(other.root, {.target = servers[2]->target(), .operation_timeout = 20s});
  REQUIRE(s0.run_targets({chief.init}).ok());
  REQUIRE(s0.run_targets({chief.sync.chief_initializer()}).ok());
  REQUIRE(s0.run_targets({chief.sync.local_initializer()}).ok());
  // The other worker's first step comes from the chief's token.
  REQUIRE(s1.run_targets({other.sync.local_initializer()}).ok());
  CHECK(fetch<int64_t>(s1, other.local_step) == 0);

  // w = 0: gradients -2 and -6, mean -4: w = 2. Then gradients 0 and -4, mean -2: w = 3.
  sync_step(s0, chief, s1, other);
  CHECK(fetch<float>(s0, chief.read_w) == doctest::Approx(2.0f));
  sync_step(s0, chief, s1, other);
  CHECK(fetch<float>(s0, chief.read_w) == doctest::Approx(3.0f));
  CHECK(fetch<int64_t>(s0, chief.read_step) == 2);

  // The fault: the other worker adds its gradient for step 2 (w = 3: -3) and waits for a token
  // that the lost chief never hands out.
  auto waiting = std::async(std::launch::async, [&] { return s1.run_targets({other.train_op}); });
  for (int i = 0; i < 200 && fetch<int32_t>(s0, chief.summed) == 0; ++i)
    std::this_thread::sleep_for(10ms);
  REQUIRE(fetch<int32_t>(s0, chief.summed) == 1);
  CHECK(waiting.wait_for(100ms) == std::future_status::timeout);

  // The chief's next attempt restores step 1 with w = 8, then runs its initializer: the summed
  // gradient (for the undone step 2, at w = 3) is dropped, and the waiting worker gets step 1.
  REQUIRE(s0.run_targets({chief.restore}).ok());
  REQUIRE(s0.run_targets({chief.sync.chief_initializer()}).ok());
  REQUIRE(s0.run_targets({chief.sync.local_initializer()}).ok());
  REQUIRE(waiting.wait_for(20s) == std::future_status::ready);
  const status resumed = waiting.get();
  REQUIRE_MESSAGE(resumed.ok(), resumed.to_string());
  CHECK(fetch<int32_t>(s0, chief.summed) == 0);
  CHECK(fetch<int64_t>(s1, other.local_step) == 1);

  // w = 8: gradients 6 and 2, mean 4: w = 6. With the stale -3 summed in, the mean of three
  // would be 5/3 and w = 7.17.
  sync_step(s0, chief, s1, other);
  CHECK(fetch<float>(s0, chief.read_w) == doctest::Approx(6.0f));
  CHECK(fetch<int64_t>(s0, chief.read_step) == 2);
}
