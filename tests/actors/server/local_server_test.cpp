// create_local_server(): a one-task cluster inside the test process, used through its target
// like any remote cluster, and server::start's errors for bad task settings.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/process.hpp"

using namespace caflow;
using caflow::testing::check_error;

TEST_CASE("a local server serves sessions through its caflow:// target") {
  auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 1});
  REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
  CHECK((*srv)->task_name() == "/job:localhost/replica:0/task:0");
  CHECK((*srv)->target() == "caflow://127.0.0.1:" + std::to_string((*srv)->port()));

  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::mul(root.with_op_name("y"), x, ops::constant(root, 4.0f));
  session sess(root, {.target = (*srv)->target()});
  for (int i = 0; i < 20; ++i) {
    auto out = sess.run({{x, tensor::scalar(float(i))}}, {y});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CHECK(out->at(0).scalar_value<float>() == 4.0f * float(i));
  }
  // Nodes added later reach the master on the next run.
  auto z = ops::neg(root.with_op_name("z"), y);
  auto more = sess.run({{x, tensor::scalar(2.0f)}}, {z});
  REQUIRE(more.ok());
  CHECK(more->at(0).scalar_value<float>() == -8.0f);
  // Errors come back with the culprit named.
  check_error(sess.run({{x, tensor::scalar<int32_t>(1)}}, {y}), "feed 'x' expects float32");
}

TEST_CASE("a session in the server's process reaches its master without the network") {
  auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 1});
  REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::identity(root.with_op_name("y"), x);
  const tensor fed = tensor::from_vector<float>({1, 2, 3});
  {
    // Handed over, not serialized: the fetched value is the fed tensor's own bytes.
    session sess(root, {.target = (*srv)->target()});
    auto out = sess.run({{x, fed}}, {y});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    CHECK(out->at(0).shares_buffer_with(fed));
  }
  {
    // Another cluster id must go through the network like any outside client, and is refused.
    session_options opts{.target = (*srv)->target()};
    opts.connect_timeout = std::chrono::milliseconds(1500);
    opts.security.cluster_id = "another";
    session sess(root, opts);
    check_error(sess.run({{x, fed}}, {y}), "cannot reach");
  }
  // A session that outlives its server gets an error, not a dangling master.
  session sess(root, {.target = (*srv)->target()});
  REQUIRE(sess.run({{x, fed}}, {y}).ok());
  srv->reset();
  check_error(sess.run({{x, fed}}, {y}), "has stopped");
}

namespace {

// A server and a graph whose step never ends by itself: a dequeue from a queue nobody fills.
struct endless_step {
  endless_step() {
    REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
    auto q = ops::fifo_queue(root.with_op_name("q"), {dtype::float32});
    item = ops::queue_dequeue(root.with_op_name("take"), q, {dtype::float32}).at(0);
  }
  status_or<std::unique_ptr<server>> srv =
      create_local_server({.intra_op_threads = 1, .inter_op_threads = 1});
  scope root = scope::new_root();
  output item;
};

}  // namespace

TEST_CASE("a session in the server's process whose server stops during a step gets an error") {
  endless_step g;
  auto& srv = g.srv;
  auto& item = g.item;
  session sess(g.root, {.target = (*srv)->target(), .busy_poll = std::chrono::microseconds(0)});
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    srv->reset();
  });
  const auto start = std::chrono::steady_clock::now();
  auto out = sess.run({item});
  stopper.join();
  REQUIRE_FALSE(out.ok());
  CHECK(out.get_status().code() == error_code::unavailable);
  CHECK(out.get_status().message().find("master at caflow://") != std::string::npos);
  CHECK(out.get_status().message().find("the master stopped before it answered the step") !=
        std::string::npos);
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(took >= std::chrono::milliseconds(150));  // it did wait for the stop
  CHECK(took < std::chrono::seconds(30));
}

TEST_CASE("a session in the server's process gives up on a step at its operation timeout") {
  endless_step g;
  session sess(g.root, {.target = (*g.srv)->target(),
                        .operation_timeout = std::chrono::milliseconds(300)});
  const auto start = std::chrono::steady_clock::now();
  auto out = sess.run({g.item});
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(out.ok());
  CHECK(out.get_status().code() == error_code::deadline_exceeded);
  CHECK(out.get_status().message().find("master at caflow://") != std::string::npos);
  CHECK(out.get_status().message().find("no answer within 300 ms") != std::string::npos);
  CHECK(took >= std::chrono::milliseconds(300));
  CHECK(took < std::chrono::seconds(5));
}

TEST_CASE("a local server's master fails a step past the step timeout it was made with") {
  // A "local" session with an accelerator makes such a server with its own operation_timeout
  // (none when 0), not the servers' default of 60 s.
  auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 1}, {},
                                 {{device_gpu, 0}}, std::chrono::milliseconds(300));
  REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
  auto root = scope::new_root();
  auto q = ops::fifo_queue(root.with_op_name("q"), {dtype::float32});
  auto item = ops::queue_dequeue(root.with_op_name("take"), q, {dtype::float32});
  auto out = ops::identity(root.with_op_name("out"), item.at(0));
  session sess(root, {.target = (*srv)->target()});  // the session itself waits as long as it takes
  auto r = sess.run({}, {out});
  REQUIRE_FALSE(r.ok());
  CHECK(r.get_status().code() == error_code::deadline_exceeded);
  check_error(r, "ran past the step timeout of 300 ms waiting for /job:localhost/replica:0/task:0");
}

TEST_CASE("runs of one cluster session from several threads may wait on each other") {
  // A producer fills a queue of one slot while a consumer empties it, each in runs of its own,
  // as TF's queue runners do: a run that waits for room must not keep the other from running.
  auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 2});
  REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
  auto root = scope::new_root();
  auto q = ops::fifo_queue(root.with_op_name("q"), {dtype::float32}, {.capacity = 1});
  auto v = ops::placeholder(root.with_op_name("v"), dtype::float32);
  auto put = ops::queue_enqueue(root.with_op_name("put"), q, {v});
  auto take = ops::queue_dequeue(root.with_op_name("take"), q, {dtype::float32}).at(0);
  session sess(root, {.target = (*srv)->target(),
                      .operation_timeout = std::chrono::milliseconds(20000)});
  constexpr int items = 20;
  std::vector<float> got;
  std::thread consumer([&] {
    for (int i = 0; i < items; ++i) {
      auto out = sess.run({take});
      if (!out.ok()) {
        MESSAGE("take: ", out.get_status().to_string());
        return;
      }
      got.push_back(out->at(0).scalar_value<float>());
    }
  });
  for (int i = 0; i < items; ++i) {
    auto done = sess.run({{v, tensor::scalar(float(i))}}, {}, {put});
    CHECK_MESSAGE(done.ok(), done.get_status().to_string());
    if (!done.ok()) break;  // the consumer's runs end at their timeout
  }
  consumer.join();
  REQUIRE(got.size() == static_cast<size_t>(items));
  for (int i = 0; i < items; ++i) CHECK(got[static_cast<size_t>(i)] == float(i));
}

TEST_CASE("bad targets and tasks are errors naming the culprit") {
  auto root = scope::new_root();
  auto c = ops::constant(root.with_op_name("c"), 1.0f);
  session bad_scheme(root, {.target = "grpc://127.0.0.1:1"});
  check_error(bad_scheme.run({c}), "neither 'local' nor 'caflow://host:port'");
  const int port = caflow::testing::free_ports(1)[0];
  session nobody(root, {.target = "caflow://127.0.0.1:" + std::to_string(port),
                        .connect_timeout = std::chrono::milliseconds(300)});
  check_error(nobody.run({c}), "cannot reach");

  auto spec = cluster_spec::from_flag("ps=127.0.0.1:" + std::to_string(port));
  REQUIRE(spec.ok());
  check_error(server::start({.cluster = *spec, .job = "worker", .task = 0}), "worker");
  check_error(server::start({.cluster = *spec, .job = "ps", .task = 3}), "3");
  check_error(server::start({.cluster = *spec, .job = "ps", .task = 0,
                             .device_filters = {"/job:ps", "/job:worker/task:-1"}}),
              "device filter '/job:worker/task:-1'");
  check_error(server::start({.cluster = *spec, .job = "ps", .task = 0,
                             .device_filters = {"/job:worker"}}),
              "the device filters (/job:worker) leave out the task itself, /job:ps/replica:0/task:0");
}

TEST_CASE("a session's step gives the same values with busy polling on, short and off") {
  // How much CPU a polling or sleeping caller uses is a benchmark's business
  // (bench/busy_poll_cpu.cpp): CPU shares depend on the machine's load, values do not.
  auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 1});
  REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
  // A step of some tens of milliseconds: three 512x512 matrix products in a row.
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32);
  auto y = ops::mat_mul(root, ops::mat_mul(root, ops::mat_mul(root, x, x), x), x);
  tensor ones(dtype::float32, tensor_shape{512, 512});
  std::fill(ones.data<float>(), ones.data<float>() + 512 * 512, 1.0f);
  const float expected = 512.0f * 512.0f * 512.0f;  // every element of ones^4
  for (auto poll : {std::chrono::microseconds(200), std::chrono::microseconds(0),
                    std::chrono::microseconds(20000)}) {
    CAPTURE(poll.count());
    session sess(root, {.target = (*srv)->target(), .busy_poll = poll});
    for (int step = 0; step < 2; ++step) {  // planned and registered, then planned already
      auto out = sess.run({{x, ones}}, {y});
      REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
      REQUIRE(out->at(0).shape() == tensor_shape{512, 512});
      CHECK(out->at(0).data<float>()[0] == expected);
      CHECK(out->at(0).data<float>()[512 * 512 - 1] == expected);
    }
  }
}
