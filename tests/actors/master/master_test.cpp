// A three-task cluster (one ps, two workers) inside one actor system: the master prunes,
// places, partitions and registers graphs whose nodes span all three tasks, then drives steps.
#include <doctest/doctest.h>

#include <caf/all.hpp>

#include "actors/master/master.hpp"
#include "actors/master/master_state.hpp"
#include "actors/worker/worker.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/ir/serialization.hpp"
#include "net/errors.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

struct cluster_config : caf::actor_system_config {
  cluster_config() {
    add_wire_types(*this);
    set("scheduler.max-threads", 2);
  }
};

const std::string ps0 = "/job:ps/replica:0/task:0";
const std::string worker0 = "/job:worker/replica:0/task:0";
const std::string worker1 = "/job:worker/replica:0/task:1";

// One process, three tasks: a worker per task and the master of worker 0.
struct in_process_cluster {
  cluster_config cfg;
  caf::actor_system sys{cfg};
  std::map<std::string, worker_actor> workers;
  master_actor master;

  explicit in_process_cluster(std::chrono::milliseconds step_timeout = std::chrono::seconds(10)) {
    workers[ps0] = spawn_worker(sys, {.job = "ps", .task = 0, .cpu = {.intra_op_threads = 1, .inter_op_threads = 1}});
    workers[worker0] = spawn_worker(sys, {.job = "worker", .task = 0, .cpu = {.intra_op_threads = 1, .inter_op_threads = 1}});
    workers[worker1] = spawn_worker(sys, {.job = "worker", .task = 1, .cpu = {.intra_op_threads = 1, .inter_op_threads = 1}});
    master = spawn_master(sys, {.job = "worker", .task = 0, .workers = workers,
                                .step_timeout = step_timeout,
                                .rpc_timeout = std::chrono::seconds(10)});
  }
  ~in_process_cluster() {
    caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
    for (auto& [task, w] : workers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  }

  status_or<std::string> create(const scope& s) {
    caf::scoped_actor self{sys};
    status_or<std::string> out = errors::internal("no reply");
    self->request(master, std::chrono::seconds(10), cf_create_atom::value, serialize_graph(s.to_graph_def()), session_config{})
        .receive([&](const std::string& handle) { out = handle; },
                 [&](caf::error& e) { out = to_status(e); });
    return out;
  }

  status_or<std::vector<tensor>> run(const std::string& session,
                                     const std::vector<std::pair<output, tensor>>& feeds,
                                     const std::vector<output>& fetches,
                                     const std::vector<std::string>& targets = {}) {
    run_step_request req{session, {}, {}, {}, targets, 0, {}};
    for (const auto& [o, t] : feeds) {
      req.feed_names.push_back(o.name());
      req.feeds.push_back(wire_tensor{t});
    }
    for (const auto& o : fetches) req.fetches.push_back(o.name());
    caf::scoped_actor self{sys};
    status_or<std::vector<tensor>> out = errors::internal("no reply");
    self->request(master, std::chrono::seconds(20), cf_step_atom::value, std::move(req))
        .receive(
            [&](const run_step_reply& reply) {
              std::vector<tensor> values;
              for (const auto& w : reply.fetches) values.push_back(w.value);
              out = std::move(values);
            },
            [&](caf::error& e) { out = to_status(e); });
    return out;
  }
};

}  // namespace

TEST_CASE("a graph spanning ps, worker 0 and worker 1 runs step after step") {
  in_process_cluster c;
  auto root = scope::new_root();
  auto ps = root.with_device("/job:ps/task:0");
  auto w1 = root.with_device("/job:worker/task:1");
  auto v = ops::variable(ps.with_op_name("v"), partial_shape{2}, dtype::float32);
  auto init = ops::assign(ps.with_op_name("init"), v, ops::constant(ps, std::vector<float>{1, 2}, {2}));
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {2}});
  auto y = ops::mul(w1.with_op_name("y"), x, v);            // worker 1 reads ps and worker 0
  auto z = ops::add(root.with_op_name("z"), y, ops::constant(root, 0.5f));  // back on worker 0
  auto inc = ops::assign_add(ps.with_op_name("inc"), v, y);  // worker 1 -> ps
  auto session = c.create(root);
  REQUIRE(session.ok());

  REQUIRE(c.run(*session, {}, {}, {init.node}).ok());
  auto out = c.run(*session, {{x, tensor::from_vector<float>({10, 20})}}, {z, y});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor(out->at(0), tensor_shape{2}, std::vector<float>{10.5f, 40.5f});
  check_tensor(out->at(1), tensor_shape{2}, std::vector<float>{10, 40});

  // v += x * v, twice: v = [1,2] -> [11,42] -> [121,882] with x = [10,20].
  for (int i = 0; i < 2; ++i)
    REQUIRE(c.run(*session, {{x, tensor::from_vector<float>({10, 20})}}, {}, {inc.node}).ok());
  auto read = c.run(*session, {}, {ops::identity(root.with_op_name("read"), v)});
  // 'read' was added after the session was created: it is not in the master's graph.
  check_error(read, "no node named 'read'");
  auto again = c.run(*session, {{x, tensor::from_vector<float>({1, 1})}}, {y});
  REQUIRE(again.ok());
  check_tensor(again->at(0), tensor_shape{2}, std::vector<float>{121, 882});
}

TEST_CASE("many steps through the same cached partitions") {
  in_process_cluster c;
  auto root = scope::new_root();
  auto w1 = root.with_device("/job:worker/task:1");
  auto ps = root.with_device("/job:ps/task:0");
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto a = ops::square(w1.with_op_name("a"), x);
  auto b = ops::neg(ps.with_op_name("b"), a);
  auto session = c.create(root);
  REQUIRE(session.ok());
  for (int i = 0; i < 200; ++i) {
    auto out = c.run(*session, {{x, tensor::scalar(float(i))}}, {b});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CHECK(out->at(0).scalar_value<float>() == -float(i) * float(i));
  }
}

TEST_CASE("a kernel error on one task aborts the step everywhere and names node, op and device") {
  in_process_cluster c;
  auto root = scope::new_root();
  auto w1 = root.with_device("/job:worker/task:1");
  auto ps = root.with_device("/job:ps/task:0");
  auto a = ops::placeholder(root.with_op_name("a"), dtype::float32);
  auto b = ops::placeholder(root.with_op_name("b"), dtype::float32);
  auto m = ops::mat_mul(w1.with_op_name("m"), a, b);
  auto after = ops::identity(ps.with_op_name("after"), m);
  auto session = c.create(root);
  REQUIRE(session.ok());
  auto out = c.run(*session, {{a, tensor(dtype::float32, tensor_shape{2, 3})},
                              {b, tensor(dtype::float32, tensor_shape{4, 5})}}, {after});
  check_error(out, "node 'm' (MatMul) on /job:worker/replica:0/task:1/device:CPU:0");
  check_error(out, "matrix size-incompatible");
  // The root cause's code and where it arose, as fields: from worker 1's executor to the
  // master, which aborted the step on the ps (whose _Recv failed too), and on to the client.
  CHECK(out.get_status().code() == error_code::invalid_argument);
  const auto& where = out.get_status().source();
  REQUIRE(where);
  CHECK(where->node == "m");
  CHECK(where->device == worker1 + "/device:CPU:0");
  CHECK(where->task == worker1);
  // The cluster keeps serving.
  auto ok = c.run(*session, {{a, tensor::filled<float>({1, 2}, 1)}, {b, tensor::filled<float>({2, 1}, 2)}}, {after});
  REQUIRE(ok.ok());
  check_tensor(ok->at(0), tensor_shape{1, 1}, std::vector<float>{4});
}

TEST_CASE("bad sessions, feeds and placements are clear errors") {
  in_process_cluster c;
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {2}});
  auto nowhere = ops::identity(root.with_device("/job:ps/task:7").with_op_name("nowhere"), x);
  auto fine = ops::identity(root.with_op_name("fine"), x);
  auto session = c.create(root);
  REQUIRE(session.ok());
  check_error(c.run("session_999", {}, {fine}), "no session 'session_999'");
  check_error(c.run(*session, {{x, tensor::scalar<int32_t>(1)}}, {fine}), "feed 'x' expects float32[2]");
  check_error(c.run(*session, {{x, tensor::filled<float>({2}, 1)}}, {nowhere}), "/job:ps/task:7");
}

TEST_CASE("losing a worker fails the steps that need it, naming the task") {
  in_process_cluster c;
  auto root = scope::new_root();
  auto w1 = root.with_device("/job:worker/task:1");
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::square(w1.with_op_name("y"), x);
  auto local = ops::neg(root.with_op_name("local"), x);
  auto session = c.create(root);
  REQUIRE(session.ok());
  REQUIRE(c.run(*session, {{x, tensor::scalar(3.0f)}}, {y}).ok());
  caf::anon_send_exit(c.workers[worker1], caf::exit_reason::kill);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto lost = c.run(*session, {{x, tensor::scalar(3.0f)}}, {y});
  check_error(lost, "/job:worker/replica:0/task:1");
  // No node failed: the source names only the task.
  CHECK(lost.get_status().code() == error_code::unavailable);
  REQUIRE(lost.get_status().source());
  CHECK(lost.get_status().source()->task == worker1);
  CHECK(lost.get_status().source()->node.empty());
  // Steps that do not touch the lost task still run.
  auto fine = c.run(*session, {{x, tensor::scalar(3.0f)}}, {local});
  REQUIRE(fine.ok());
  CHECK(fine->at(0).scalar_value<float>() == -3.0f);
}

TEST_CASE("a step past the step timeout fails naming the task it waits on") {
  in_process_cluster c(std::chrono::milliseconds(300));
  auto root = scope::new_root();
  auto w1 = root.with_device("/job:worker/task:1");
  // Dequeuing from a queue nobody fills waits forever.
  auto q = ops::fifo_queue(w1.with_op_name("q"), {dtype::float32});
  auto item = ops::queue_dequeue(w1.with_op_name("take"), q, {dtype::float32});
  auto out = ops::identity(root.with_op_name("out"), item.at(0));
  auto session = c.create(root);
  REQUIRE(session.ok());
  const auto start = std::chrono::steady_clock::now();
  auto r = c.run(*session, {}, {out});
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(r.ok());
  CHECK(r.get_status().code() == error_code::deadline_exceeded);
  check_error(r, "ran past the step timeout of 300 ms waiting for ");
  check_error(r, worker1);
  CHECK(took < std::chrono::seconds(5));
}

TEST_CASE("a step starts the partitions in other processes before this process's own") {
  using caflow::master_internal::partition_ref;
  auto tasks = [](std::vector<partition_ref> parts) {
    caflow::master_internal::remote_first(parts);
    std::string order;
    for (const auto& p : parts) order += p.task;
    return order;
  };
  std::vector<partition_ref> parts(5);
  for (size_t i = 0; i < parts.size(); ++i) parts[i].task = std::string(1, char('a' + i));
  parts[1].remote = parts[3].remote = parts[4].remote = true;
  CHECK(tasks(parts) == "bdeac");
  CHECK(tasks({}).empty());
  parts.resize(2);
  parts[1].remote = false;
  CHECK(tasks(parts) == "ab");
}
