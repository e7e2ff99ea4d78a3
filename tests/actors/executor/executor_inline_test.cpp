// Where an executor runs its nodes when a step enters it on an actor's thread (inside an
// executor::actor_thread_scope): light nodes right there, everything else on the device's
// threads. The test op reports the thread it ran on, so each case checks where a node ran.
//
//   x = _Arg(0) ── where = TestWhereRun(x) ── _Retval(0)
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "actors/executor/executor.hpp"
#include "devices/cpu_device.hpp"
#include "kernels/framework/cancellation.hpp"
#include "kernels/framework/kernel_registry.hpp"

using namespace caflow;

namespace {

int64_t thread_tag(std::thread::id id) { return static_cast<int64_t>(std::hash<std::thread::id>{}(id)); }

// Sleeps for as many microseconds as x's first element says, then outputs a tag of the thread
// it ran on.
class where_run_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    const float sleep_us = *ctx.input(0).data<float>();
    if (sleep_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(int64_t(sleep_us)));
    ctx.set_output(0, tensor::scalar<int64_t>(thread_tag(std::this_thread::get_id())));
  }
};

}  // namespace

CAFLOW_REGISTER_OP("TestWhereRun").input("x: float32").output("where: int64");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestWhereRun").device(device_cpu), where_run_op);

namespace {

const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";

struct fixture {
  cpu_device dev{cpu0, cpu_device_options{.intra_op_threads = 1, .inter_op_threads = 1}};
  std::unique_ptr<executor> ex;
  int64_t next_step = 1;

  fixture() {
    std::vector<node_def> nodes = {
        {"x", "_Arg", cpu0, {}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
        {"where", "TestWhereRun", cpu0, {"x"}, {}},
        {"ret", "_Retval", cpu0, {"where"}, {{"T", dtype::int64}, {"index", int64_t{0}}}},
    };
    auto g = graph::build(graph_def{graph_def::current_version, std::move(nodes)});
    REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
    auto made = executor::create(std::make_shared<const graph>(std::move(g).value()), dev);
    REQUIRE_MESSAGE(made.ok(), made.get_status().to_string());
    ex = std::move(made).value();
  }

  // Runs one step started on this thread, as an actor would (or not); returns where `where` ran.
  int64_t run(const tensor& x, bool as_actor) {
    call_frame frame;
    frame.args = {x};
    frame.rets.resize(1);
    cancellation_manager cm;
    std::mutex mu;
    std::condition_variable cv;
    bool finished = false;
    status result;
    {
      std::optional<executor::actor_thread_scope> scope;
      if (as_actor) scope.emplace();
      ex->run_async({next_step++, &frame, &cm, nullptr}, [&](const status& st) {
        std::lock_guard<std::mutex> lock(mu);
        result = st;
        finished = true;
        cv.notify_all();
      });
    }
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return finished; }));
    REQUIRE_MESSAGE(result.ok(), result.to_string());
    return frame.rets[0].scalar_value<int64_t>();
  }
};

const int64_t here = thread_tag(std::this_thread::get_id());

}  // namespace

// x: how long the test op sleeps, in microseconds.
const tensor fast = tensor::scalar(0.0f);
const tensor slow = tensor::scalar(2000.0f);  // a hundred times light_node_ns

// Runs fast steps on an actor's thread until one runs inline; how many that took (at most 10).
// One will soon: a run measured on the device makes the node light unless that run was slow,
// which a cold first run can be (page faults; ten times longer under a sanitizer).
int runs_until_inline(fixture& f) {
  for (int runs = 1; runs <= 10; ++runs)
    if (f.run(fast, true) == here) return runs;
  return -1;
}

TEST_CASE("outside an actor's thread every node runs on the calling thread") {
  fixture f;
  CHECK(f.run(fast, false) == here);
  CHECK(f.run(slow, false) == here);
}

TEST_CASE("on an actor's thread a node of unknown cost runs on the device, then inline once measured light") {
  fixture f;
  CHECK_FALSE(executor::on_actor_thread());
  CHECK(f.run(fast, true) != here);  // never measured yet
  const int runs = runs_until_inline(f);
  CHECK(runs >= 1);
  CHECK(runs <= 3);
  CHECK(f.run(fast, true) == here);
  CHECK_FALSE(executor::on_actor_thread());
}

TEST_CASE("on an actor's thread a node measured heavy runs on the device") {
  fixture f;
  f.run(slow, false);  // measured: the cost was unknown
  CHECK(f.run(slow, true) != here);
  CHECK(f.run(slow, true) != here);
}

TEST_CASE("a light node that turns out slow on an actor's thread goes back to the device") {
  // Preemption only ever makes a run look slower: with tests running in parallel, a light node
  // may look heavy for a while. So the sequence gets three tries, each with a fresh executor,
  // and must hold in one; a node that never turned heavy, or never came back, fails all three.
  bool held = false;
  for (int attempt = 1; attempt <= 3 && !held; ++attempt) {
    fixture f;
    REQUIRE(runs_until_inline(f) > 0);
    const bool light = f.run(slow, true) == here &&  // light as far as the executor could know
                       f.run(slow, true) == here;    // one slow run may have been preempted
    const bool heavy = f.run(fast, true) != here;    // slow twice: heavy; measured on the
    const bool back = runs_until_inline(f) > 0;      // device, and light again
    MESSAGE("attempt ", attempt, ": light ", light, ", heavy ", heavy, ", back ", back);
    held = light && heavy && back;
  }
  CHECK(held);
}

TEST_CASE("on an actor's thread a light node with inputs over light_input_bytes runs on the device") {
  fixture f;
  const int64_t big_elems = executor::light_input_bytes / sizeof(float) + 1;
  REQUIRE(runs_until_inline(f) > 0);
  CHECK(f.run(tensor::filled(tensor_shape{big_elems}, 0.0f), true) != here);
  CHECK(f.run(fast, true) == here);
}
