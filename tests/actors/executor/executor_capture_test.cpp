// The executor's recording and replay of a partition (actors/executor/executor_capture.cpp) on a device
// that emulates recording: its capture runs each kernel's host part at once and keeps it, and a
// launch of the "graph" calls every kept part again, whose results then go where the recorded
// ones went (device_graph.hpp's contract, which a CUDA graph keeps by writing the same buffers).
// So values check the bookkeeping: the fixed buffers of outside values, the recorded outputs
// read outside the core, and variables updated in place. CI has no GPU; this is what covers
// the choice between recording, replay and plain launches there.
//
//   x = _Arg(0)          v = VariableV2 [n]
//   y = TestRecAddOne(x)                       core
//   z = TestRecAdd(y, v)  (v read)             core
//   a = Assign(v, z)                           core: v <- v + x + 1
//   ret = _Retval(z)
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "actors/executor/executor.hpp"
#include "graph/core/log.hpp"
#include "devices/cpu_device.hpp"
#include "kernels/framework/cancellation.hpp"
#include "graph/ir/partition.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/framework/local_rendezvous.hpp"

using namespace caflow;

namespace {

class add_one_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  bool is_capturable() const override { return true; }
  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    auto out = tensor::allocate(ctx.dev().get_allocator(), dtype::float32, x.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, out.get_status());
    for (int64_t i = 0; i < x.num_elements(); ++i) out->data<float>()[i] = x.data<float>()[i] + 1;
    ctx.set_output(0, *out);
  }
};

class add_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  bool is_capturable() const override { return true; }
  void compute(kernel_context& ctx) override {
    const tensor& a = ctx.input(0);
    const tensor& b = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, a.shape() == b.shape(),
                       errors::invalid_argument("shapes ", a.shape().to_string(), " and ",
                                                b.shape().to_string()));
    auto out = tensor::allocate(ctx.dev().get_allocator(), dtype::float32, a.shape());
    CAFLOW_OP_REQUIRES_OK(ctx, out.get_status());
    for (int64_t i = 0; i < a.num_elements(); ++i)
      out->data<float>()[i] = a.data<float>()[i] + b.data<float>()[i];
    ctx.set_output(0, *out);
  }
};

// Not recordable: a node between two recordable ones keeps the second out of the core.
class pass_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override { ctx.set_output(0, ctx.input(0)); }
};

}  // namespace

CAFLOW_REGISTER_OP("TestRecAddOne").input("x: float32").output("y: float32");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestRecAddOne").device(device_cpu), add_one_op);
CAFLOW_REGISTER_OP("TestRecAdd").input("a: float32").input("b: float32").output("z: float32");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestRecAdd").device(device_cpu), add_op);
CAFLOW_REGISTER_OP("TestRecPass").input("x: float32").output("y: float32");
CAFLOW_REGISTER_KERNEL(kernel_def_builder("TestRecPass").device(device_cpu), pass_op);

namespace {

const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";

thread_local bool emulating = false;

struct recording_stats {
  int recordings = 0;   // captures finished
  int launches = 0;
  int copies = 0;
};

// A graph of kept host parts: its first launch follows the capture that already ran them.
class emulated_graph final : public device_graph {
 public:
  emulated_graph(std::vector<std::function<status()>> parts, recording_stats& stats)
      : parts_(std::move(parts)), stats_(stats) {}
  status launch() override {
    ++stats_.launches;
    if (first_) {
      first_ = false;
      return {};
    }
    // A replay runs no host logic of its own on a GPU: the parts run as under recording.
    emulating = true;
    status st;
    for (auto& p : parts_)
      if (st.ok()) st = p();
    emulating = false;
    return st;
  }

 private:
  std::vector<std::function<status()>> parts_;
  recording_stats& stats_;
  bool first_ = true;
};

class emulated_capture final : public device_capture {
 public:
  explicit emulated_capture(recording_stats& stats) : stats_(stats) { emulating = true; }
  ~emulated_capture() override { emulating = false; }
  status record(std::function<status()> fn) override {
    CAFLOW_RETURN_IF_ERROR(fn());
    parts_.push_back(std::move(fn));
    return {};
  }
  status_or<std::unique_ptr<device_graph>> finish() override {
    emulating = false;
    ++stats_.recordings;
    return std::unique_ptr<device_graph>(new emulated_graph(std::move(parts_), stats_));
  }
  size_t parts() const { return parts_.size(); }

 private:
  recording_stats& stats_;
  std::vector<std::function<status()>> parts_;
};

// A CPU device (CPU kernels) that records as above.
class recording_device final : public device {
 public:
  explicit recording_device(bool can = true)
      : device(cpu0, device_cpu),
        cpu_(cpu0, cpu_device_options{.intra_op_threads = 1, .inter_op_threads = 1}),
        can_(can) {}
  const std::shared_ptr<allocator>& get_allocator() const override { return cpu_.get_allocator(); }
  allocator_stats memory_stats() const override { return cpu_.memory_stats(); }
  void schedule(std::function<void()> fn) override { cpu_.schedule(std::move(fn)); }
  const Eigen::ThreadPoolDevice* eigen_cpu() const override { return cpu_.eigen_cpu(); }

  bool can_capture() const override { return can_; }
  bool is_capturing() const override { return emulating; }
  status_or<std::unique_ptr<device_capture>> begin_capture() override {
    if (fail_capture) return errors::internal("no recording today");
    return std::unique_ptr<device_capture>(new emulated_capture(stats));
  }
  status copy_into(const tensor& from, tensor& to) override {
    REQUIRE(from.byte_size() == to.byte_size());
    ++stats.copies;
    if (from.raw_data() != to.raw_data()) std::memcpy(to.raw_data(), from.raw_data(), from.byte_size());
    return {};
  }

  recording_stats stats;
  bool fail_capture = false;

 private:
  cpu_device cpu_;
  bool can_;
};

// What the executor logs to stderr (file descriptor 2) while alive.
class stderr_to_file {
 public:
  stderr_to_file() {
    std::fflush(stderr);
    saved_ = ::dup(2);
    std::FILE* f = std::fopen(path_.c_str(), "w");
    REQUIRE(f != nullptr);
    ::dup2(::fileno(f), 2);
    std::fclose(f);
  }
  ~stderr_to_file() { restore(); }
  std::string text() {
    restore();
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  std::string path_ = "executor_capture_test_stderr.txt";
  int saved_ = -1;
};

std::unique_ptr<executor> make(device& dev, std::vector<node_def> nodes) {
  auto g = graph::build(graph_def{graph_def::current_version, std::move(nodes)});
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  auto made = executor::create(std::make_shared<const graph>(std::move(g).value()), dev);
  REQUIRE_MESSAGE(made.ok(), made.get_status().to_string());
  return std::move(made).value();
}

node_def variable_node(int64_t n) {
  return {"v", "VariableV2", cpu0, {}, {{"shape", partial_shape{n}}, {"dtype", dtype::float32}}};
}

tensor filled(int64_t n, float value) {
  tensor t = tensor::allocate(default_allocator(), dtype::float32, tensor_shape{n}).value();
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = value;
  return t;
}

// v <- value, by a plain Assign (it re-points v to a buffer of its own).
void set_variable(device& dev, int64_t n, float value) {
  auto init = make(dev, {variable_node(n),
                         {"x", "_Arg", cpu0, {}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
                         {"a", "Assign", cpu0, {"v", "x"}, {{"T", dtype::float32}}}});
  call_frame frame;
  frame.args = {filled(n, value)};
  cancellation_manager cm;
  REQUIRE(init->run({1, &frame, &cm, nullptr}).ok());
}

struct fixture {
  explicit fixture(bool can = true, int64_t n = 4) : dev(can) {
    set_variable(dev, n, 0);
    ex = make(dev, {
        {"x", "_Arg", cpu0, {}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
        variable_node(n),
        {"y", "TestRecAddOne", cpu0, {"x"}, {}},
        {"z", "TestRecAdd", cpu0, {"y", "v"}, {}},
        {"a", "Assign", cpu0, {"v", "z"}, {{"T", dtype::float32}}},
        {"ret", "_Retval", cpu0, {"z"}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
    });
  }
  // One step fed x; returns z, or the step's error.
  status_or<std::vector<float>> step(const tensor& x) {
    call_frame frame;
    frame.args = {x};
    frame.rets.resize(1);
    cancellation_manager cm;
    status st = ex->run({next_step++, &frame, &cm, nullptr}, std::chrono::seconds(10));
    if (!st.ok()) return st;
    const tensor& z = frame.rets[0];
    return std::vector<float>(z.data<float>(), z.data<float>() + z.num_elements());
  }
  recording_device dev;
  std::unique_ptr<executor> ex;
  int64_t next_step = 2;
};

void check_all(const std::vector<float>& v, float want) {
  for (float x : v) CHECK(x == want);
}

}  // namespace

TEST_CASE("a step is recorded after one plain step, then replayed, with the same values") {
  fixture f;
  // v grows by x + 1 = 2 each step; z is v's new value.
  for (int s = 1; s <= 6; ++s) {
    auto z = f.step(filled(4, 1));
    REQUIRE_MESSAGE(z.ok(), z.get_status().to_string());
    CAPTURE(s);
    check_all(*z, 2.0f * s);
  }
  CHECK(f.dev.stats.recordings == 1);  // step 2
  CHECK(f.dev.stats.launches == 5);    // steps 2 to 6
  // Each launch first copies the step's x into the recording's own buffer.
  CHECK(f.dev.stats.copies >= 5);
}

TEST_CASE("a step whose shapes differ from the recording runs plainly, says so once, and is recorded again") {
  fixture f(true, 4);
  for (int s = 1; s <= 3; ++s) REQUIRE(f.step(filled(4, 1)).ok());
  REQUIRE(f.dev.stats.recordings == 1);
  const int launches = f.dev.stats.launches;
  stderr_to_file err;
  // TestRecAdd refuses [3] + [4]: this step runs plainly and fails with the kernel's own error.
  auto bad = f.step(filled(3, 1));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.get_status().message().find("shapes [3] and [4]") != std::string::npos);
  CHECK(bad.get_status().message().find("'z'") != std::string::npos);
  CHECK(f.dev.stats.launches == launches);  // not replayed
  // Back to [4]: one plain step (a warm-up), then a new recording.
  auto z = f.step(filled(4, 1));
  REQUIRE(z.ok());
  check_all(*z, 8.0f);
  z = f.step(filled(4, 1));
  REQUIRE(z.ok());
  check_all(*z, 10.0f);
  CHECK(f.dev.stats.recordings == 2);
  const std::string log = err.text();
  CHECK(log.find("runs with plain launches for this step") != std::string::npos);
  CHECK(log.find("differ from the recorded step's") != std::string::npos);
}

TEST_CASE("a variable given another buffer from outside is not replayed over") {
  fixture f;
  for (int s = 1; s <= 3; ++s) REQUIRE(f.step(filled(4, 1)).ok());  // v = 6
  const int launches = f.dev.stats.launches;
  set_variable(f.dev, 4, 100);  // a plain Assign: v has a new buffer
  auto z = f.step(filled(4, 1));
  REQUIRE(z.ok());
  check_all(*z, 102.0f);  // a replay would have read the old buffer: 8
  CHECK(f.dev.stats.launches == launches);
  for (int s = 1; s <= 3; ++s) {
    z = f.step(filled(4, 1));
    REQUIRE(z.ok());
    check_all(*z, 102.0f + 2 * s);
  }
  CHECK(f.dev.stats.recordings == 2);
}

TEST_CASE("a failed recording leaves the partition on plain launches for good, with one message") {
  fixture f;
  f.dev.fail_capture = true;
  stderr_to_file err;
  for (int s = 1; s <= 5; ++s) {
    auto z = f.step(filled(4, 1));
    REQUIRE(z.ok());
    check_all(*z, 2.0f * s);
  }
  f.dev.fail_capture = false;
  REQUIRE(f.step(filled(4, 1)).ok());
  CHECK(f.dev.stats.recordings == 0);
  CHECK(f.dev.stats.launches == 0);
  const std::string log = err.text();
  CHECK(log.find("runs with plain launches from now on: no recording today") != std::string::npos);
  CHECK(log.find("plain launches", log.find("plain launches") + 1) == std::string::npos);
}

TEST_CASE("with recording off nothing is recorded") {
  fixture f(false);
  for (int s = 1; s <= 4; ++s) {
    auto z = f.step(filled(4, 1));
    REQUIRE(z.ok());
    check_all(*z, 2.0f * s);
  }
  CHECK(f.dev.stats.recordings == 0);
  CHECK(f.dev.stats.launches == 0);
}

TEST_CASE("a node reached from the core through a node outside it is recorded in a later segment") {
  recording_device dev;
  REQUIRE(init_logging("info").ok());
  stderr_to_file err;
  //   y = AddOne(x) [segment 0] -> p = Pass(y) [not recordable] -> z = AddOne(p) [segment 1]
  auto ex = make(dev, {
      {"x", "_Arg", cpu0, {}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
      {"y", "TestRecAddOne", cpu0, {"x"}, {}},
      {"p", "TestRecPass", cpu0, {"y"}, {}},
      {"z", "TestRecAddOne", cpu0, {"p"}, {}},
      {"ret", "_Retval", cpu0, {"z"}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
  });
  for (int s = 1; s <= 4; ++s) {
    call_frame frame;
    frame.args = {filled(3, float(s))};
    frame.rets.resize(1);
    cancellation_manager cm;
    REQUIRE(ex->run({s, &frame, &cm, nullptr}).ok());
    for (int i = 0; i < 3; ++i) CHECK(frame.rets[0].data<float>()[i] == float(s) + 2);
  }
  CHECK(dev.stats.recordings == 2);  // both segments, at step 2
  CHECK(dev.stats.launches == 6);    // two per step from step 2 on
  REQUIRE(init_logging("warn").ok());
  // The plan says what cut the core, so a partition's segments can be told apart on a GPU.
  CHECK_MESSAGE(err.text().find("recorded in 2 segment(s) of 1, 1 nodes; segment 2 starts at z, "
                                "after p (TestRecPass, not recorded)") != std::string::npos,
                err.text());
}

TEST_CASE("a copy from host memory is recorded when its input is, and runs plainly when fed from outside") {
  recording_device dev;
  REQUIRE(init_logging("info").ok());
  stderr_to_file err;
  // cy = _CopyFromHost(y) reads a value of the core: recorded with it. ch = _CopyFromHost(h)
  // reads a feed, new each step: it runs plainly and its output comes in from outside.
  auto ex = make(dev, {
      {"x", "_Arg", cpu0, {}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
      {"h", "_Arg", cpu0, {}, {{"T", dtype::float32}, {"index", int64_t{1}}}},
      {"ch", "_CopyFromHost", cpu0, {"h"}, {{"T", dtype::float32}}},
      {"y", "TestRecAddOne", cpu0, {"x"}, {}},
      {"cy", "_CopyFromHost", cpu0, {"y"}, {{"T", dtype::float32}}},
      {"z", "TestRecAdd", cpu0, {"y", "cy"}, {}},
      {"w", "TestRecAdd", cpu0, {"z", "ch"}, {}},
      {"ret", "_Retval", cpu0, {"w"}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
  });
  for (int64_t s = 1; s <= 4; ++s) {
    const float h = float(10 * s);
    call_frame frame;
    frame.args = {filled(2, float(s)), filled(2, h)};
    frame.rets.resize(1);
    cancellation_manager cm;
    REQUIRE(ex->run({s, &frame, &cm, nullptr}).ok());
    for (int i = 0; i < 2; ++i) CHECK(frame.rets[0].data<float>()[i] == 2 * (float(s) + 1) + h);
  }
  CHECK(dev.stats.recordings == 1);  // one segment, recorded at step 2
  CHECK(dev.stats.launches == 3);    // steps 2 to 4
  REQUIRE(init_logging("warn").ok());
  CHECK_MESSAGE(err.text().find("recorded in 1 segment(s) of 4 nodes") != std::string::npos, err.text());
}

TEST_CASE("a later segment reads an earlier one's value directly, from what the plan keeps") {
  recording_device dev;
  // y = AddOne(x) [segment 0]; p = Pass(y) [outside]; z = Add(y, p) [segment 1] reads y both
  // ways: directly (the value segment 0's recording keeps) and through p.
  auto ex = make(dev, {
      {"x", "_Arg", cpu0, {}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
      {"y", "TestRecAddOne", cpu0, {"x"}, {}},
      {"p", "TestRecPass", cpu0, {"y"}, {}},
      {"z", "TestRecAdd", cpu0, {"y", "p"}, {}},
      {"ret", "_Retval", cpu0, {"z"}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
  });
  for (int s = 1; s <= 3; ++s) {
    call_frame frame;
    frame.args = {filled(2, float(s))};
    frame.rets.resize(1);
    cancellation_manager cm;
    REQUIRE(ex->run({s, &frame, &cm, nullptr}).ok());
    for (int i = 0; i < 2; ++i) CHECK(frame.rets[0].data<float>()[i] == 2 * (float(s) + 1));
  }
  // z reads y from segment 0 (a kept value) and p from outside: segment 1.
  CHECK(dev.stats.recordings == 2);
  CHECK(dev.stats.launches == 4);
}

TEST_CASE("a value that comes back from another device is read in a segment after what it depends on") {
  // y = AddOne(x) [segment 0] is sent to another device, which sends back r = 10 y; z = y + r
  // reads r through a _Recv the partitioner marks loops_back_via y, so z waits in segment 1.
  // Unmarked, z would join segment 0, which would wait for r, which waits for y: a deadlock.
  const std::string other = "/job:localhost/replica:0/task:0/device:CPU:1";
  auto edge = [&](node_def n, const std::string& tensor, const std::string& from,
                  const std::string& to) {
    n.attrs["tensor_name"] = tensor;
    n.attrs["send_device"] = from;
    n.attrs["send_device_incarnation"] = int64_t{7};
    n.attrs["recv_device"] = to;
    return n;
  };
  const node_def send_y =
      edge({"send_y", "_Send", cpu0, {"y"}, {{"T", dtype::float32}}}, "y:0", cpu0, other);
  node_def recv_r = edge({"recv_r", "_Recv", cpu0, {}, {{"tensor_type", dtype::float32}}}, "r:0",
                         other, cpu0);
  recv_r.attrs["loops_back_via"] = std::vector<std::string>{"y"};
  recording_device dev;
  auto ex = make(dev, {
      {"x", "_Arg", cpu0, {}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
      {"y", "TestRecAddOne", cpu0, {"x"}, {}},
      send_y,
      recv_r,
      {"z", "TestRecAdd", cpu0, {"y", "recv_r"}, {}},
      {"ret", "_Retval", cpu0, {"z"}, {{"T", dtype::float32}, {"index", int64_t{0}}}},
  });
  auto rdv = std::make_shared<local_rendezvous>();
  const std::string y_key = rendezvous_key(send_y), r_key = rendezvous_key(recv_r);
  for (int64_t s = 1; s <= 4; ++s) {
    // The other device: r = 10 y, sent once y has arrived.
    rdv->recv_async(y_key, s, [rdv, r_key, s](const status& st, const tensor& y) {
      REQUIRE(st.ok());
      tensor r = tensor::allocate(default_allocator(), dtype::float32, y.shape()).value();
      for (int64_t i = 0; i < y.num_elements(); ++i) r.data<float>()[i] = 10 * y.data<float>()[i];
      REQUIRE(rdv->send(r_key, s, r).ok());
    });
    call_frame frame;
    frame.args = {filled(3, float(s))};
    frame.rets.resize(1);
    cancellation_manager cm;
    const status st = ex->run({s, &frame, &cm, rdv.get()}, std::chrono::seconds(10));
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    for (int i = 0; i < 3; ++i) CHECK(frame.rets[0].data<float>()[i] == 11 * (float(s) + 1));
    rdv->cleanup_step(s);
  }
  CHECK(dev.stats.recordings == 2);  // both segments, at step 2
  CHECK(dev.stats.launches == 6);    // two per step from step 2 on
}
