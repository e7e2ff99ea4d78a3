// Two CPU devices in one process, each running its own partition with its own executor, the
// cut edges between them meeting in one local_rendezvous, as a worker runs a placed graph:
//
//   CPU:0   x = _Arg(0) ── _Send "x:0" ──────────▶ _Recv "x:0" ── Identity ── _Retval(0)   CPU:1
//           _Retval(0) ── Identity ── _Recv "y:0" ◀────────── _Send "y:0" ── y = _Arg(0)
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/executor/executor.hpp"
#include "devices/counting_allocator.hpp"
#include "devices/cpu_device.hpp"
#include "graph/ir/partition.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/framework/local_rendezvous.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_tensor;

namespace {

// Fails after a moment, so that the other partition's _Recv is usually already waiting.
class slow_fail_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ctx.set_status(errors::invalid_argument("boom"));
  }
};

}  // namespace

CAFLOW_REGISTER_OP("TestMultiDeviceFail").input("x: float32").output("y: float32");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestMultiDeviceFail").device(device_cpu), slow_fail_op);

namespace {

const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
const std::map<std::string, int64_t> incarnation = {{cpu0, 0x1234}, {cpu1, 0x5678}};

node_def edge_attrs(node_def n, const std::string& edge, const std::string& from,
                    const std::string& to) {
  n.attrs["tensor_name"] = edge;
  n.attrs["send_device"] = from;
  n.attrs["send_device_incarnation"] = incarnation.at(from);
  n.attrs["recv_device"] = to;
  return n;
}
node_def send(const std::string& name, const std::string& input, dtype t, const std::string& edge,
              const std::string& from, const std::string& to) {
  return edge_attrs({name, "_Send", from, {input}, {{"T", t}}}, edge, from, to);
}
node_def recv(const std::string& name, dtype t, const std::string& edge, const std::string& from,
              const std::string& to) {
  return edge_attrs({name, "_Recv", to, {}, {{"tensor_type", t}}}, edge, from, to);
}
node_def arg(const std::string& name, dtype t) {
  return {name, "_Arg", "", {}, {{"T", t}, {"index", int64_t{0}}}};
}
node_def retval(const std::string& name, const std::string& input, dtype t) {
  return {name, "_Retval", "", {input}, {{"T", t}, {"index", int64_t{0}}}};
}
node_def identity(const std::string& name, const std::string& input, dtype t) {
  return {name, "Identity", "", {input}, {{"T", t}}};
}

std::unique_ptr<executor> make_executor(std::vector<node_def> nodes, cpu_device& dev) {
  for (node_def& n : nodes) n.device = dev.name();
  auto g = graph::build(graph_def{graph_def::current_version, std::move(nodes)});
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  auto ex = executor::create(std::make_shared<const graph>(std::move(g).value()), dev);
  REQUIRE_MESSAGE(ex.ok(), ex.get_status().to_string());
  return std::move(ex).value();
}

struct two_devices {
  cpu_device cpu_0{cpu0, cpu_device_options{.intra_op_threads = 1, .inter_op_threads = 2}};
  cpu_device cpu_1{cpu1, cpu_device_options{.intra_op_threads = 1, .inter_op_threads = 2}};
  local_rendezvous rdv;
};

// One step of several partitions in flight, each started on its own device's threads with its
// own call frame and cancellation, as a worker runs them. When a partition fails, the step is
// aborted in the rendezvous so the partitions waiting on it wake, as the worker does.
class step_run {
 public:
  step_run(rendezvous& rdv, int64_t step_id) : rdv_(rdv), step_id_(step_id) {}

  // REQUIRES: before start().
  call_frame& add(executor& ex, std::vector<tensor> args, size_t num_rets) {
    parts_.push_back(std::make_unique<part>());
    parts_.back()->ex = &ex;
    parts_.back()->frame.args = std::move(args);
    parts_.back()->frame.rets.resize(num_rets);
    return parts_.back()->frame;
  }

  void start() {
    remaining_ = static_cast<int>(parts_.size());
    for (auto& p : parts_) {
      part* pr = p.get();
      pr->ex->get_device().schedule([this, pr] {
        pr->ex->run_async({step_id_, &pr->frame, &pr->cm, &rdv_}, [this, pr](const status& st) {
          if (!st.ok()) rdv_.abort_step(step_id_, st);
          std::lock_guard<std::mutex> lock(mu_);
          pr->result = st;
          if (--remaining_ == 0) cv_.notify_all();
        });
      });
    }
  }

  // Every partition's result, in the order added; then the step is cleaned up. A step that
  // hangs cannot be unwound safely (its kernels point into this object): it ends the test run.
  std::vector<status> wait() {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, std::chrono::seconds(10), [this] { return remaining_ == 0; })) {
      std::cerr << "step " << step_id_ << " did not finish within 10 s: a _Recv hangs\n";
      std::abort();
    }
    std::vector<status> out;
    for (auto& p : parts_) out.push_back(p->result);
    lock.unlock();
    rdv_.cleanup_step(step_id_);
    return out;
  }

 private:
  struct part {
    executor* ex = nullptr;
    call_frame frame;
    cancellation_manager cm;
    status result;
  };
  rendezvous& rdv_;
  int64_t step_id_;
  std::vector<std::unique_ptr<part>> parts_;
  std::mutex mu_;
  std::condition_variable cv_;
  int remaining_ = 0;
};

// The round trip of the diagram above: x (float32) goes CPU:0 -> CPU:1, y (int32) the other way.
struct round_trip : two_devices {
  std::unique_ptr<executor> a = make_executor(
      {arg("x", dtype::float32), send("send_x", "x", dtype::float32, "x:0", cpu0, cpu1),
       recv("recv_y", dtype::int32, "y:0", cpu1, cpu0), identity("y_out", "recv_y", dtype::int32),
       retval("ret_y", "y_out", dtype::int32)},
      cpu_0);
  std::unique_ptr<executor> b = make_executor(
      {recv("recv_x", dtype::float32, "x:0", cpu0, cpu1),
       identity("x_out", "recv_x", dtype::float32), retval("ret_x", "x_out", dtype::float32),
       arg("y", dtype::int32), send("send_y", "y", dtype::int32, "y:0", cpu1, cpu0)},
      cpu_1);

  // Step `i` sends x = [i, -i/2] and y = 7i.
  struct inputs {
    tensor x, y;
  };
  static inputs inputs_of(int64_t i) {
    return {tensor::from_vector<float>({float(i), -float(i) / 2}),
            tensor::scalar<int32_t>(static_cast<int32_t>(7 * i))};
  }
  // Checks what arrived: each value on the other device, sharing the fed bytes.
  static void check_arrived(int64_t i, const inputs& in, const call_frame& fa,
                            const call_frame& fb) {
    CAPTURE(i);
    check_tensor(fb.rets[0], tensor_shape{2}, std::vector<float>{float(i), -float(i) / 2});
    check_tensor(fa.rets[0], tensor_shape{}, std::vector<int32_t>{static_cast<int32_t>(7 * i)});
    CHECK(fb.rets[0].shares_buffer_with(in.x));
    CHECK(fa.rets[0].shares_buffer_with(in.y));
  }
};

bool contains(const status& st, const std::string& text) {
  return st.message().find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("tensors cross between two devices both ways, zero-copy, step after step") {
  round_trip t;
  for (int64_t i = 1; i <= 5; ++i) {
    const auto in = round_trip::inputs_of(i);
    step_run step(t.rdv, i);
    call_frame& fa = step.add(*t.a, {in.x}, 1);
    call_frame& fb = step.add(*t.b, {in.y}, 1);
    step.start();
    const auto results = step.wait();
    REQUIRE_MESSAGE(results[0].ok(), results[0].to_string());
    REQUIRE_MESSAGE(results[1].ok(), results[1].to_string());
    round_trip::check_arrived(i, in, fa, fb);
  }
  CHECK(t.rdv.num_live_steps() == 0);
}

TEST_CASE("200 steps, two in flight at a time, never mix or lose a value") {
  round_trip t;
  for (int64_t i = 0; i < 200; i += 2) {
    const auto in0 = round_trip::inputs_of(i), in1 = round_trip::inputs_of(i + 1);
    step_run s0(t.rdv, i), s1(t.rdv, i + 1);
    // The second step starts its partitions in the other order.
    call_frame& a0 = s0.add(*t.a, {in0.x}, 1);
    call_frame& b0 = s0.add(*t.b, {in0.y}, 1);
    call_frame& b1 = s1.add(*t.b, {in1.y}, 1);
    call_frame& a1 = s1.add(*t.a, {in1.x}, 1);
    s0.start();
    s1.start();
    const auto r0 = s0.wait();
    const auto r1 = s1.wait();
    REQUIRE_MESSAGE((r0[0].ok() && r0[1].ok()), r0[0].to_string(), " / ", r0[1].to_string());
    REQUIRE_MESSAGE((r1[0].ok() && r1[1].ok()), r1[0].to_string(), " / ", r1[1].to_string());
    round_trip::check_arrived(i, in0, a0, b0);
    round_trip::check_arrived(i + 1, in1, a1, b1);
  }
  CHECK(t.rdv.num_live_steps() == 0);
}

TEST_CASE("a failing kernel on one device wakes the other device's _Recv with its error") {
  two_devices d;
  auto a = make_executor(
      {{"c", "Const", "", {}, {{"value", tensor::scalar(1.0f)}, {"dtype", dtype::float32}}},
       {"fail", "TestMultiDeviceFail", "", {"c"}, {}},
       send("send_f", "fail", dtype::float32, "fail:0", cpu0, cpu1)},
      d.cpu_0);
  auto b = make_executor(
      {recv("recv_f", dtype::float32, "fail:0", cpu0, cpu1),
       identity("f_out", "recv_f", dtype::float32), retval("ret_f", "f_out", dtype::float32)},
      d.cpu_1);
  for (int64_t i = 0; i < 20; ++i) {
    CAPTURE(i);
    step_run step(d.rdv, i);
    step.add(*a, {}, 0);
    step.add(*b, {}, 1);
    step.start();
    const auto results = step.wait();
    CHECK(contains(results[0], "node 'fail' (TestMultiDeviceFail) on " + cpu0 + ": boom"));
    // The root cause reaches the waiting partition, behind the name of the _Recv it woke.
    CHECK(contains(results[1], "node 'recv_f' (_Recv) on " + cpu1 + ": node 'fail'"));
    CHECK(contains(results[1], ": boom"));
  }
  CHECK(d.rdv.num_live_steps() == 0);
}

TEST_CASE("a partition that fails while its own _Recv waits is woken by its cancellation") {
  // CPU:1 only sends g once it has received f, which never comes; so nothing but CPU:0's own
  // abort can wake recv_g, and CPU:0 cannot report its error before recv_g finishes. recv_g
  // comes first so that the executor starts it (roots run in order) before `fail` fails.
  two_devices d;
  auto a = make_executor(
      {recv("recv_g", dtype::float32, "g:0", cpu1, cpu0),
       {"c", "Const", "", {}, {{"value", tensor::scalar(1.0f)}, {"dtype", dtype::float32}}},
       {"fail", "TestMultiDeviceFail", "", {"c"}, {}},
       send("send_f", "fail", dtype::float32, "fail:0", cpu0, cpu1),
       retval("ret_g", "recv_g", dtype::float32)},
      d.cpu_0);
  auto b = make_executor({recv("recv_f", dtype::float32, "fail:0", cpu0, cpu1),
                          identity("g", "recv_f", dtype::float32),
                          send("send_g", "g", dtype::float32, "g:0", cpu1, cpu0)},
                         d.cpu_1);
  for (int64_t i = 0; i < 20; ++i) {
    CAPTURE(i);
    step_run step(d.rdv, i);
    step.add(*a, {}, 1);
    step.add(*b, {}, 0);
    step.start();
    const auto results = step.wait();
    CHECK(contains(results[0], "node 'fail' (TestMultiDeviceFail) on " + cpu0 + ": boom"));
    CHECK(results[1].code() == error_code::cancelled);
    CHECK(contains(results[1], "node 'recv_f' (_Recv) on " + cpu1 + ": step " + std::to_string(i) +
                                   " was cancelled"));
  }
  CHECK(d.rdv.num_live_steps() == 0);
}

TEST_CASE("a step whose value never comes ends at its timeout and refuses the late value") {
  two_devices d;
  auto b = make_executor({recv("recv_x", dtype::float32, "x:0", cpu0, cpu1),
                          retval("ret_x", "recv_x", dtype::float32)},
                         d.cpu_1);
  call_frame frame;
  frame.rets.resize(1);
  cancellation_manager cm;
  const status st = b->run({42, &frame, &cm, &d.rdv}, std::chrono::milliseconds(50));
  CHECK(st.code() == error_code::deadline_exceeded);
  const std::string key = cpu0 + ";0000000000001234;" + cpu1 + ";x:0;0:0";
  const status late = d.rdv.send(key, 42, tensor::scalar(1.0f));
  CHECK(late.code() == error_code::cancelled);
  CHECK(contains(late, "step 42 was cancelled"));
  d.rdv.cleanup_step(42);
  CHECK(d.rdv.num_live_steps() == 0);
}

namespace {

// A local rendezvous that offers memory of its own for values sent under one key, as a
// worker's rendezvous offers a same-host link's segment (actors/rendezvous/remote_rendezvous.hpp).
class offering_rendezvous final : public rendezvous {
 public:
  offering_rendezvous(std::string key, std::shared_ptr<counting_allocator> memory)
      : key_(std::move(key)), memory_(std::move(memory)) {}
  status send(const std::string& key, int64_t step_id, const tensor& value) override {
    return local_.send(key, step_id, value);
  }
  void recv_async(const std::string& key, int64_t step_id, recv_callback done) override {
    local_.recv_async(key, step_id, std::move(done));
  }
  void abort_step(int64_t step_id, const status& error) override { local_.abort_step(step_id, error); }
  void cleanup_step(int64_t step_id) override { local_.cleanup_step(step_id); }
  std::shared_ptr<allocator> output_allocator(const std::string& key) override {
    return key == key_ ? memory_ : nullptr;
  }

 private:
  local_rendezvous local_;
  const std::string key_;
  const std::shared_ptr<counting_allocator> memory_;
};

node_def neg(const std::string& name, const std::string& input) {
  return {name, "Neg", "", {input}, {{"T", dtype::float32}}};
}

}  // namespace

TEST_CASE("an output only a _Send reads takes the rendezvous's memory; one read here does not") {
  cpu_device cpu_0{cpu0, cpu_device_options{.intra_op_threads = 1, .inter_op_threads = 2}};
  cpu_device cpu_1{cpu1, cpu_device_options{.intra_op_threads = 1, .inter_op_threads = 2}};
  const dtype f = dtype::float32;
  // The key cpu_0's _Send of `only_sent` uses: the one rendezvous_key makes of its node.
  const node_def probe = send("s_only", "only_sent", f, "only_sent:0", cpu0, cpu1);
  auto memory = std::make_shared<counting_allocator>("offered", default_allocator());
  offering_rendezvous rdv(rendezvous_key(probe), memory);
  auto sender = make_executor({arg("x", f), neg("only_sent", "x"), neg("also_kept", "x"),
                               send("s_only", "only_sent", f, "only_sent:0", cpu0, cpu1),
                               send("s_kept", "also_kept", f, "also_kept:0", cpu0, cpu1),
                               retval("kept", "also_kept", f)},
                              cpu_0);
  auto receiver = make_executor(
      {recv("r_only", f, "only_sent:0", cpu0, cpu1), recv("r_kept", f, "also_kept:0", cpu0, cpu1),
       node_def{"sum", "AddV2", "", {"r_only", "r_kept"}, {{"T", f}}}, retval("out", "sum", f)},
      cpu_1);
  for (int64_t step = 1; step <= 3; ++step) {
    step_run run(rdv, step);
    run.add(*sender, {tensor::from_vector<float>({1, 2, 3})}, 1);
    call_frame& got = run.add(*receiver, {}, 1);
    run.start();
    for (const status& st : run.wait()) REQUIRE_MESSAGE(st.ok(), st.to_string());
    check_tensor(got.rets[0], tensor_shape{3}, std::vector<float>{-2, -4, -6});
    CHECK(memory->stats().num_allocs == step);  // only_sent's output, once a step
  }
}
