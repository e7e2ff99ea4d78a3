// Two workers, driven by hand the way a master drives them: register each task's partition,
// bind its _Sends to the rendezvous actors the other task named, run steps, abort, clean up.
// The graphs span task 0 and task 1 of job "worker"; unplaced nodes go to task 0:
//
//   task 0   x ──────────────┬──────────────────────────▶ z = m + 0.5     fetches: y, z
//   task 1                   └──▶ y = Identity(x),  m = x * 3 ──┘
//
// Once with both workers in one actor system (the fetched y shares x's buffer), once with
// each in its own actor system, connected over loopback by the middleman.
#include <doctest/doctest.h>

#include <memory>
#include <thread>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "net/wire/chunked_values.hpp"
#include "net/wire/send_batch.hpp"
#include "actors/worker/worker.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/core/device_name.hpp"
#include "graph/ir/partition.hpp"
#include "graph/ir/placer.hpp"
#include "graph/ir/prune.hpp"
#include "graph/ir/serialization.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "net/errors.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/rendezvous_sink.hpp"
#include "test_util/two_task_master.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using namespace caflow::testing::two_tasks;

namespace {

// The graph of the diagram, fetching y and z.
struct xyz_graph {
  scope root = scope::new_root();
  output x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  scope w1 = root.with_device("/job:worker/task:1");
  output y = ops::identity(w1.with_op_name("y"), x);
  output m = ops::mul(w1.with_op_name("m"), x, ops::constant(w1, 3.0f));
  output z = ops::add(root.with_op_name("z"), m, ops::constant(root, 0.5f));
  plan p = make_plan(root, {.feeds = {"x"}, .fetches = {"y", "z"}, .targets = {}});

  // Step i feeds x = [i, -2i, 0.25].
  static tensor feed(int64_t i) {
    return tensor::from_vector<float>({float(i), -2.0f * float(i), 0.25f});
  }
  static void check(int64_t i, const std::vector<tensor>& out) {
    CAPTURE(i);
    REQUIRE(out.size() == 2);
    check_tensor(out[0], tensor_shape{3}, std::vector<float>{float(i), -2.0f * float(i), 0.25f});
    check_tensor(out[1], tensor_shape{3},
                 std::vector<float>{3.0f * float(i) + 0.5f, -6.0f * float(i) + 0.5f, 1.25f});
  }
};

// m = a x a on task 1 fails unless a is square; task 0 waits for it.
struct matmul_graph {
  scope root = scope::new_root();
  output a = ops::placeholder(root.with_op_name("a"), dtype::float32);
  output mm = ops::mat_mul(root.with_device("/job:worker/task:1").with_op_name("mm"), a, a);
  output out = ops::identity(root.with_op_name("out"), mm);
  plan p = make_plan(root, {.feeds = {"a"}, .fetches = {"out"}, .targets = {}});
};

struct one_system {
  test_config cfg;
  caf::actor_system sys{cfg};
  std::vector<worker_actor> workers;

  explicit one_system(int max_pending_steps = 8) {
    workers.push_back(spawn_worker(sys, options(0, max_pending_steps)));
    workers.push_back(spawn_worker(sys, options(1, max_pending_steps)));
  }
  ~one_system() {
    for (auto& w : workers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  }
};

// Waits (boundedly) until `handle` is no longer registered on `task`, without touching it: a
// malformed bind is refused as "no graph" once it is gone, as a size mismatch while it is there.
status wait_unregistered(hand_master& m, int task, const std::string& handle) {
  const auto deadline = std::chrono::steady_clock::now() + scaled(std::chrono::seconds(5));
  for (;;) {
    status probe = m.bind(task, {handle, {"probe"}, {}});
    REQUIRE_FALSE(probe.ok());
    if (probe.message().find("no graph") != std::string::npos ||
        std::chrono::steady_clock::now() >= deadline)
      return probe;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

TEST_CASE("one actor system: steps across two tasks, zero-copy, values checked by hand") {
  one_system c;
  hand_master master(c.sys, c.workers);
  xyz_graph g;
  const auto handles = master.install(g.p);
  for (int64_t i = 1; i <= 5; ++i) {
    const tensor x = xyz_graph::feed(i);
    auto out = master.step(handles, i, {x}, 2);
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    xyz_graph::check(i, *out);
    // x went from task 0's _Send through task 1's rendezvous actor to y by handle only.
    CHECK(out->at(0).shares_buffer_with(x));
  }
}

TEST_CASE("a partition registered twice gets two handles sharing its edges' actors") {
  one_system c;
  hand_master master(c.sys, c.workers);
  xyz_graph g;
  const std::string bytes = serialize_graph(g.p.parts[1]);
  auto first = master.reg(1, dev1, bytes);
  auto second = master.reg(1, dev1, bytes);
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(first->graph_handle != second->graph_handle);
  CHECK(first->graph_handle.find(task1) != std::string::npos);
  REQUIRE(first->recv_keys.size() == 1);  // x, once, however many consumers it has there
  CHECK(first->recv_keys == second->recv_keys);
  CHECK(first->recv_endpoints == second->recv_endpoints);
  CHECK(master.dereg(1, first->graph_handle).ok());
  check_error(master.dereg(1, first->graph_handle), "no graph '" + first->graph_handle + "'");
  // The second registration still runs through the shared actor. Task 0 takes no part here:
  // x is pushed by hand, as task 0's _Send would, and m goes to a sink.
  rendezvous_actor sink = caflow::testing::spawn_rendezvous_sink(c.sys);
  REQUIRE(master.bind(1, {second->graph_handle, send_keys(g.p.parts[1]), {sink}}).ok());
  const tensor x = tensor::from_vector<float>({1, 2, 3});
  auto h = master.run_request(1, second->graph_handle, 7, {x}, 2);
  caf::anon_send(second->recv_endpoints[0], cf_push_atom::value,
                 edge_value{7, second->recv_keys[0], wire_tensor{x}});
  auto r = await<run_graph_reply>(std::move(h));
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  check_tensor(r->rets[0].value, tensor_shape{3}, std::vector<float>{1, 2, 3});
  CHECK_FALSE(r->rets[1].value.initialized());  // z is task 0's
  auto gone = master.run_request(1, first->graph_handle, 8, {x}, 2);
  check_error(await<run_graph_reply>(std::move(gone)), "no graph '" + first->graph_handle + "'");
  // A value sent to the wrong edge's actor fails the step there instead of feeding a _Recv.
  auto misrouted = master.run_request(1, second->graph_handle, 9, {}, 2);
  caf::anon_send(second->recv_endpoints[0], cf_push_atom::value,
                 edge_value{9, "some;other;key", wire_tensor{x}});
  check_error(await<run_graph_reply>(std::move(misrouted)),
              "received a value for edge 'some;other;key': its sender is bound to the wrong actor");
  caf::anon_send_exit(sink, caf::exit_reason::user_shutdown);
}

TEST_CASE("a master that is lost takes its steps and its graphs on the worker with it") {
  one_system c;
  xyz_graph g;
  auto first = std::make_unique<hand_master>(c.sys, c.workers);
  const auto handles = first->install(g.p);
  // Task 1 waits for x from task 0, which never runs the step: only its master could end it.
  auto pending = first->run_request(1, handles[1], 42, {xyz_graph::feed(1)}, 2);
  first->sync(1);
  static_cast<void>(pending);
  first.reset();  // the master's actor terminates; the worker monitors it
  hand_master second(c.sys, c.workers);
  // Its graphs are released on both tasks: nobody else could deregister them.
  for (int t : {0, 1})
    check_error(wait_unregistered(second, t, handles[t]),
                "no graph '" + handles[t] + "' is registered on task");
  check_error(await<run_graph_reply>(second.run_request(1, handles[1], 44, {}, 2)),
              "no graph '" + handles[1] + "'");
  // The same partitions registered again: the lost master's step is refused (while its run
  // winds down, then as over), never run a second time.
  const auto mine = second.install(g.p);
  std::string last, unexpected;
  const auto deadline = std::chrono::steady_clock::now() + scaled(std::chrono::seconds(5));
  while (std::chrono::steady_clock::now() < deadline) {
    auto again = await<run_graph_reply>(second.run_request(1, mine[1], 42, {}, 2));
    REQUIRE_FALSE(again.ok());
    last = again.get_status().message();
    if (last.find("step 42 is already over on task") != std::string::npos) break;
    if (last.find("the master that ran the step here was lost") == std::string::npos)
      unexpected = last;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK_MESSAGE(unexpected.empty(), unexpected);
  CHECK(last.find("step 42 is already over on task /job:worker/replica:0/task:1") !=
        std::string::npos);
  // The worker still serves other masters, and their graphs stay when another master goes.
  std::vector<std::string> theirs;
  {
    hand_master third(c.sys, c.workers);
    theirs = third.install(g.p);
  }
  check_error(wait_unregistered(second, 1, theirs[1]), "no graph '" + theirs[1] + "'");
  check_error(second.bind(1, {mine[1], {"probe"}, {}}), "1 send keys but 0 endpoints");
  auto out = second.step(mine, 43, {xyz_graph::feed(2)}, 2);
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  xyz_graph::check(2, *out);
}

TEST_CASE("two actor systems over loopback: tensors and errors cross the middleman") {
  test_config cfg_a, cfg_b;
  caf::actor_system sys_a{cfg_a}, sys_b{cfg_b};
  worker_actor w0 = spawn_worker(sys_a, options(0));
  worker_actor w1_home = spawn_worker(sys_b, options(1));
  {
    worker_actor w1 = reach_over_loopback(sys_b, w1_home, sys_a);
    hand_master master(sys_a, {w0, w1});

    xyz_graph g;
    const auto handles = master.install(g.p);
    for (int64_t i = 1; i <= 20; ++i) {
      const tensor x = xyz_graph::feed(i);
      auto out = master.step(handles, i, {x}, 2);
      REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
      xyz_graph::check(i, *out);
      CHECK_FALSE(out->at(0).shares_buffer_with(x));  // it crossed a process boundary
    }

    matmul_graph mg;
    const auto mh = master.install(mg.p);
    auto bad = master.step(mh, 100, {tensor(dtype::float32, tensor_shape{2, 3})}, 1);
    // Task 1's kernel error, across the wire; task 0 may report it first as its own _Recv's.
    check_error(bad, "node 'mm' (MatMul) on " + dev1);
    auto good = master.step(mh, 101, {tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})}, 1);
    REQUIRE_MESSAGE(good.ok(), good.get_status().to_string());
    check_tensor(good->at(0), tensor_shape{2, 2}, std::vector<float>{7, 10, 15, 22});

    // One float more than a message may carry: it crosses the cut edge in chunks, and task 1's
    // fetch of it comes back in chunks ahead of the reply, which lists it instead of carrying it.
    const tensor big = tensor::filled<float>(
        tensor_shape{static_cast<int64_t>(max_wire_tensor_bytes / sizeof(float)) + 1}, 1.0f);
    auto h0 = master.run_request(0, handles[0], 200, {big}, 2);
    auto h1 = master.run_request(1, handles[1], 200, {}, 2);
    auto r0 = await<run_graph_reply>(std::move(h0));
    auto r1 = await<run_graph_reply>(std::move(h1));
    REQUIRE_MESSAGE(r0.ok(), r0.get_status().to_string());  // the chunked send went through
    REQUIRE_MESSAGE(r1.ok(), r1.get_status().to_string());
    CHECK(r1->sends.values.empty());  // not asked for: task 1's send went as its own message
    REQUIRE(r1->chunked_rets.size() == 1);
    const int32_t k = r1->chunked_rets[0];
    CHECK_FALSE(r1->rets.at(k).value.initialized());
    chunked_arrivals arrivals;
    const std::string key = chunk_key("ret", static_cast<size_t>(k));
    while (!arrivals.settled(200, key)) {
      bool timed_out = false;
      master.self->receive([&](cf_chunk_atom, const edge_chunk& c) { CHECK(arrivals.take(c).ok()); },
                           caf::after(std::chrono::seconds(10)) >> [&] { timed_out = true; });
      REQUIRE_FALSE(timed_out);
    }
    auto fetched = arrivals.claim(200, key);
    REQUIRE_MESSAGE(fetched.ok(), fetched.get_status().to_string());
    REQUIRE(fetched->num_elements() == big.num_elements());
    const float* p = fetched->data<float>();
    // y = Identity(x) on task 1: every element is the fed 1.
    int64_t wrong = 0;
    for (int64_t i = 0; i < big.num_elements(); ++i) wrong += p[i] != 1.0f;
    CHECK(wrong == 0);
    master.cleanup(200);

    // Asked for, task 1's reply carries its last value for this process (m, for z on task 0)
    // instead of sending it; task 0's run waits for it until the requester hands it over.
    auto c0 = master.run_request(0, handles[0], 300, {xyz_graph::feed(4)}, 2, 0, true);
    auto c1 = master.run_request(1, handles[1], 300, {xyz_graph::feed(4)}, 2, 0, true);
    auto carried = await<run_graph_reply>(std::move(c1));
    REQUIRE_MESSAGE(carried.ok(), carried.get_status().to_string());
    REQUIRE(carried->sends.values.size() == 1);
    REQUIRE(carried->sends.to.size() == 1);
    CHECK(carried->sends.to[0].node() == sys_a.node());
    CHECK(carried->sends.values[0].step_id == 300);
    check_tensor(carried->sends.values[0].value.value, tensor_shape{3},
                 std::vector<float>{12, -24, 0.75f});  // m = 3x
    REQUIRE(send_batch::hand_over(std::move(carried->sends), sys_a.node()).ok());
    auto r300 = await<run_graph_reply>(std::move(c0));
    REQUIRE_MESSAGE(r300.ok(), r300.get_status().to_string());
    check_tensor(r300->rets[1].value, tensor_shape{3}, std::vector<float>{12.5f, -23.5f, 1.25f});
    master.cleanup(300);
  }
  caf::anon_send_exit(w0, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(w1_home, caf::exit_reason::user_shutdown);
}

TEST_CASE("a kernel error on one task: the other task's step ends with the abort's root cause") {
  one_system c;
  hand_master master(c.sys, c.workers);
  matmul_graph g;
  const auto handles = master.install(g.p);
  for (int64_t i = 1; i <= 10; ++i) {
    CAPTURE(i);
    auto waiting =
        master.run_request(0, handles[0], i, {tensor(dtype::float32, tensor_shape{2, 3})}, 1);
    auto failing =
        master.run_request(1, handles[1], i, {tensor(dtype::float32, tensor_shape{2, 3})}, 1);
    auto root = await<run_graph_reply>(std::move(failing));
    REQUIRE_FALSE(root.ok());
    CHECK(root.get_status().code() == error_code::invalid_argument);
    check_error(root, "node 'mm' (MatMul) on " + dev1 + ": ");
    // Where it arose, as fields, across the worker's reply.
    const auto& where = root.get_status().source();
    REQUIRE(where);
    CHECK(where->node == "mm");
    CHECK(where->device == dev1);
    CHECK(where->task == task1);
    // As the master does: task 0's _Recv would wait for mm forever, so abort the step there.
    master.abort(0, i, root.get_status());
    auto woken = await<run_graph_reply>(std::move(waiting));
    REQUIRE_FALSE(woken.ok());
    CHECK(woken.get_status().code() == root.get_status().code());
    CHECK(woken.get_status().message() == root.get_status().message());
    // Task 0's step failed at its _Recv, but its root cause arose at mm on task 1.
    REQUIRE(woken.get_status().source());
    CHECK(woken.get_status().source()->node == "mm");
    CHECK(woken.get_status().source()->device == dev1);
    CHECK(woken.get_status().source()->task == task1);
    // Later work of the aborted step is refused with the same root cause.
    auto late = master.run_request(0, handles[0], i, {tensor::scalar(1.0f)}, 1);
    CHECK(await<run_graph_reply>(std::move(late)).get_status().message() ==
          root.get_status().message());
    master.cleanup(i);
  }
  // An abort that arrives before the run: the run is refused at once.
  master.abort(0, 50, errors::unavailable("task 7 was lost"));
  auto refused = master.run_request(0, handles[0], 50, {tensor::scalar(1.0f)}, 1);
  auto r = await<run_graph_reply>(std::move(refused));
  CHECK(r.get_status().code() == error_code::unavailable);
  check_error(r, "task 7 was lost");
  CHECK_FALSE(r.get_status().source());
  master.cleanup(50);
  // A cleaned-up step is over: running it again is refused rather than left waiting.
  auto again = master.run_request(0, handles[0], 50, {tensor::scalar(1.0f)}, 1);
  check_error(await<run_graph_reply>(std::move(again)), "step 50 is already over on task " + task0);
  // The workers keep serving.
  auto good = master.step(handles, 51, {tensor::from_vector<float>({1, 2, 3, 4}, {2, 2})}, 1);
  REQUIRE_MESSAGE(good.ok(), good.get_status().to_string());
  check_tensor(good->at(0), tensor_shape{2, 2}, std::vector<float>{7, 10, 15, 22});
}

TEST_CASE("malformed partitions, wrong devices and bad requests are clear errors") {
  one_system c;
  hand_master master(c.sys, c.workers);
  xyz_graph g;
  check_error(master.reg(0, dev0, "not a graph"), "partition for " + dev0 + ": ");
  // A partition for task 1 sent to task 0.
  check_error(master.reg(0, dev1, serialize_graph(g.p.parts[1])),
              "partition for " + dev1 + ": it was sent to the worker of task " + task0);
  // Task 1's nodes, announced as task 0's.
  check_error(master.reg(0, dev0, serialize_graph(g.p.parts[1])),
              "is placed on '" + dev1 + "', not on the partition's device");
  graph_def unknown;
  unknown.nodes.push_back({"u", "NoSuchOp", dev0, {}, {}});
  check_error(master.reg(0, dev0, serialize_graph(unknown)), "NoSuchOp");
  // Partitioned for an earlier life of task 0.
  xyz_graph stale;
  stale.p = make_plan(stale.root, {.feeds = {"x"}, .fetches = {"y", "z"}, .targets = {}},
                      {.incarnations = {{dev0, 0x5555}, {dev1, incarnation1}}});
  check_error(master.reg(0, dev0, serialize_graph(stale.p.parts[0])), "(it restarted)");

  const auto handles = master.install(g.p);
  auto unknown_handle = master.run_request(0, "nope", 1, {xyz_graph::feed(1)}, 2);
  check_error(await<run_graph_reply>(std::move(unknown_handle)),
              "no graph 'nope' is registered on task " + task0);
  auto no_feed = master.run_request(0, handles[0], 1, {}, 2);
  check_error(await<run_graph_reply>(std::move(no_feed)),
              "needs feed #0, which step 1 does not carry");
  auto few_fetches = master.run_request(0, handles[0], 1, {xyz_graph::feed(1)}, 1);
  check_error(await<run_graph_reply>(std::move(few_fetches)),
              "writes 2 fetches but step 1 asks for 1");
  master.cleanup(1);
  // A graph with no nodes is fine (a master may register one to learn the incarnation).
  auto empty = master.reg(1, dev1, serialize_graph(graph_def{}));
  REQUIRE(empty.ok());
  CHECK(empty->incarnation == incarnation1);
}

TEST_CASE("binding: a key the graph does not send, a key left out, running unbound") {
  one_system c;
  hand_master master(c.sys, c.workers);
  xyz_graph g;
  auto reply = master.reg(0, dev0, serialize_graph(g.p.parts[0]));
  REQUIRE(reply.ok());
  const std::string handle = reply->graph_handle;
  const auto keys = send_keys(g.p.parts[0]);
  REQUIRE(keys.size() == 1);
  rendezvous_actor some_actor = caflow::testing::spawn_rendezvous_sink(c.sys);

  auto unbound = master.run_request(0, handle, 1, {xyz_graph::feed(1)}, 2);
  check_error(await<run_graph_reply>(std::move(unbound)),
              "graph '" + handle + "' is not bound: its _Send key '" + keys[0] + "'");
  check_error(master.bind(0, {handle, {"bogus;key"}, {some_actor}}),
              "has no _Send with the key 'bogus;key'");
  check_error(master.bind(0, {handle, {}, {}}), "leaves the _Send key '" + keys[0] + "' unbound");
  check_error(master.bind(0, {handle, {keys[0]}, {}}), "1 send keys but 0 endpoints");
  check_error(master.bind(0, {handle, {keys[0]}, {some_actor}, {bulk_endpoint{}, bulk_endpoint{}}}),
              "1 send keys but 2 bulk endpoints");
  check_error(master.bind(0, {handle, {keys[0]}, {rendezvous_actor{}}}), "invalid actor handle");
  check_error(master.bind(0, {"nope", {}, {}}), "no graph 'nope'");
  CHECK(master.bind(0, {handle, {keys[0]}, {some_actor}}).ok());
  caf::anon_send_exit(some_actor, caf::exit_reason::user_shutdown);
}

TEST_CASE("an edge holds at most max_pending_steps_per_edge steps not cleaned up") {
  one_system c(/*max_pending_steps=*/2);
  hand_master master(c.sys, c.workers);
  xyz_graph g;
  const auto handles = master.install(g.p);
  // Only task 0 runs steps 1..3: each pushes x to task 1's edge, where nobody takes it yet,
  // and waits for m, which task 1 has not computed.
  std::vector<decltype(master.run_request(0, "", 0, {}, 0))> task0_runs;
  for (int64_t i = 1; i <= 3; ++i)
    task0_runs.push_back(master.run_request(0, handles[0], i, {xyz_graph::feed(i)}, 2));
  // Task 0 runs them concurrently, so which step's value comes last is up to its threads: two
  // steps get theirs, the third is refused.
  int64_t refused_step = 0;
  for (int64_t i = 1; i <= 3; ++i) {
    CAPTURE(i);
    auto r = await<run_graph_reply>(master.run_request(1, handles[1], i, {}, 2));
    if (r.ok()) {
      check_tensor(r->rets[0].value, tensor_shape{3},
                   std::vector<float>{float(i), -2.0f * float(i), 0.25f});
      continue;
    }
    REQUIRE(refused_step == 0);
    refused_step = i;
    CHECK(r.get_status().code() == error_code::resource_exhausted);
    check_error(r, "refuses the value of step " + std::to_string(i));
    check_error(r, "max_pending_steps_per_edge = 2");
    check_error(r, "edge '" + send_keys(g.p.parts[0]).at(0) + "'");
    master.abort(0, i, r.get_status());
  }
  REQUIRE(refused_step != 0);
  for (int64_t i = 1; i <= 3; ++i) {
    auto r = await<run_graph_reply>(std::move(task0_runs[i - 1]));
    CHECK(r.ok() == (i != refused_step));
  }
  for (int64_t i = 1; i <= 3; ++i) master.cleanup(i);
  master.sync(1);  // task 1 has told its edges to forget steps 1..3
  for (int64_t i = 4; i <= 6; ++i) {
    auto out = master.step(handles, i, {xyz_graph::feed(i)}, 2);
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    xyz_graph::check(i, *out);
  }
}

TEST_CASE("a step that succeeds on every task it ran on is cleaned up there without a message") {
  // With room for 2 steps' values per edge, 6 steps in a row succeed only if each task forgot
  // the earlier ones by itself.
  one_system c(/*max_pending_steps=*/2);
  hand_master master(c.sys, c.workers);
  xyz_graph g;
  const auto handles = master.install(g.p);
  for (int64_t i = 1; i <= 6; ++i) {
    CAPTURE(i);
    auto a = master.run_request(0, handles[0], i, {xyz_graph::feed(i)}, 2, /*runs_here=*/1);
    auto b = master.run_request(1, handles[1], i, {}, 2, /*runs_here=*/1);
    auto ra = await<run_graph_reply>(std::move(a));
    auto rb = await<run_graph_reply>(std::move(b));
    REQUIRE_MESSAGE(ra.ok(), ra.get_status().to_string());
    REQUIRE_MESSAGE(rb.ok(), rb.get_status().to_string());
    xyz_graph::check(i, {rb->rets[0].value, ra->rets[1].value});
    // Over on both tasks: a late run of the step is refused, never run a second time. The run
    // answers from its own thread before the worker hears it ended, so the refusal is either
    // the step being over or its edge value being taken already, whichever comes first.
    master.sync(0);
    auto late = await<run_graph_reply>(master.run_request(0, handles[0], i, {xyz_graph::feed(i)}, 2));
    REQUIRE_FALSE(late.ok());
    const std::string why = late.get_status().message();
    CHECK_MESSAGE((why.find("step " + std::to_string(i) + " is already over on task") !=
                       std::string::npos ||
                   why.find("was already received in step " + std::to_string(i)) !=
                       std::string::npos),
                  why);
  }
  // A step told it runs twice on task 1 (but run there once) waits for the master's cleanup,
  // so its edge's room is taken until then.
  auto a = master.run_request(0, handles[0], 7, {xyz_graph::feed(7)}, 2, 1);
  auto b = master.run_request(1, handles[1], 7, {}, 2, /*runs_here=*/2);
  REQUIRE(await<run_graph_reply>(std::move(a)).ok());
  REQUIRE(await<run_graph_reply>(std::move(b)).ok());
  master.sync(1);
  // Not over there: a second run is accepted, and its _Recv finds the value already taken.
  auto again = await<run_graph_reply>(master.run_request(1, handles[1], 7, {}, 2));
  check_error(again, "was already received in step 7");
  master.cleanup(7);
}

TEST_CASE("200 steps, two in flight at a time, never mix or lose a value") {
  one_system c;
  hand_master master(c.sys, c.workers);
  xyz_graph g;
  const auto handles = master.install(g.p);
  for (int64_t i = 0; i < 200; i += 2) {
    const tensor x0 = xyz_graph::feed(i), x1 = xyz_graph::feed(i + 1);
    // Step i+1's partitions start in the other order.
    auto a0 = master.run_request(0, handles[0], i, {x0}, 2);
    auto b0 = master.run_request(1, handles[1], i, {x0}, 2);
    auto b1 = master.run_request(1, handles[1], i + 1, {x1}, 2);
    auto a1 = master.run_request(0, handles[0], i + 1, {x1}, 2);
    auto ra0 = await<run_graph_reply>(std::move(a0));
    auto rb0 = await<run_graph_reply>(std::move(b0));
    auto rb1 = await<run_graph_reply>(std::move(b1));
    auto ra1 = await<run_graph_reply>(std::move(a1));
    for (const auto* r : {&ra0, &rb0, &rb1, &ra1})
      REQUIRE_MESSAGE(r->ok(), r->get_status().to_string());
    xyz_graph::check(i, {rb0->rets[0].value, ra0->rets[1].value});
    xyz_graph::check(i + 1, {rb1->rets[0].value, ra1->rets[1].value});
    CHECK(rb1->rets[0].value.shares_buffer_with(x1));
    master.cleanup(i);
    master.cleanup(i + 1);
  }
}

TEST_CASE("a worker stopped in the middle of a step answers its run and exits") {
  one_system c;
  hand_master master(c.sys, c.workers);
  xyz_graph g;
  const auto handles = master.install(g.p);
  // Task 0 waits for m, which task 1 never computes.
  auto waiting = master.run_request(0, handles[0], 1, {xyz_graph::feed(1)}, 2);
  master.sync(0);  // the run has started
  caf::anon_send_exit(c.workers[0], caf::exit_reason::user_shutdown);
  auto r = await<run_graph_reply>(std::move(waiting));
  REQUIRE_FALSE(r.ok());
  CHECK(r.get_status().code() == error_code::unavailable);
  check_error(r, "the worker of task " + task0 + " is shutting down");
}
