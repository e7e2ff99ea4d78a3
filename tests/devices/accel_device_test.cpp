// The test accelerator (test_util/accel_device.hpp) as the runtime sees a second device type
// with memory of its own, without a cluster: the device registry, the kernel registry's
// aliased kernels and host-memory args, the device actor, and the executor's check that every
// input is in the memory its kernel reads:
//
//   CPU:0    x = _Arg ───────────────▶ Relu ──▶ _Retval      x fed from the ACCEL arena: refused
//   ACCEL:0  x = _Arg ─▶ _CopyFromHost ─▶ Relu ─▶ _CopyToHost ─▶ _Retval      copies: runs
//   ACCEL:0  x = _Arg ───────────────▶ Relu ──▶ _Retval      no copy: refused
//
// and the two halves of a cut edge between the memories, in either memory at the _Send:
//
//   ACCEL:0  x = _Arg ─▶ _CopyFromHost ─▶ Relu ─▶ _Send "r"      _Recv "r" ─▶ _Retval(0)  CPU:0
//            x ─────────────────────────────────▶ _Send "x"      _Recv "x" ─▶ _Retval(1)
//   ACCEL:0  _Retval ◀─ _CopyToHost ◀─ Neg ◀─ _Recv "y" (device)  ◀─ _Send "y" ◀─ y = _Arg
#include "test_util/accel_device.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <caf/all.hpp>
#include <thread>

#include "actors/device/device_actor.hpp"
#include "actors/executor/executor.hpp"
#include "devices/cpu_device.hpp"
#include "devices/device_factory.hpp"
#include "kernels/framework/cancellation.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/framework/local_rendezvous.hpp"
#include "net/errors.hpp"
#include "test_util/kernel_fixture.hpp"

CAFLOW_TEST_REGISTER_ACCEL_DEVICE();

using namespace caflow;
using caflow::testing::accel_device;
using caflow::testing::accel_stats;
using caflow::testing::check_error;
using caflow::testing::check_tensor;
using caflow::testing::device_accel;

namespace {

const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string accel0 = "/job:localhost/replica:0/task:0/device:ACCEL:0";

std::vector<std::string> names_of(const std::vector<std::unique_ptr<device>>& devices) {
  std::vector<std::string> out;
  for (const auto& d : devices) out.push_back(d->name());
  return out;
}

// No GPU in the lists below, whether or not this machine has one.
device_options no_gpu(std::map<std::string, int> counts = {}) {
  counts.emplace(device_gpu, 0);
  return {.cpu = {.intra_op_threads = 1, .inter_op_threads = 1}, .device_count = std::move(counts)};
}

node_def node(std::string name, std::string op, std::vector<std::string> inputs,
              std::map<std::string, attr_value> attrs) {
  return {std::move(name), std::move(op), "", std::move(inputs), std::move(attrs)};
}
node_def arg(const std::string& name) {
  return node(name, "_Arg", {}, {{"T", dtype::float32}, {"index", int64_t{0}}});
}
node_def retval(const std::string& name, const std::string& input) {
  return node(name, "_Retval", {input}, {{"T", dtype::float32}, {"index", int64_t{0}}});
}
node_def unary(const std::string& name, const std::string& op, const std::string& input) {
  return node(name, op, {input}, {{"T", dtype::float32}});
}

std::unique_ptr<executor> make_executor(std::vector<node_def> nodes, device& dev) {
  for (node_def& n : nodes) n.device = dev.name();
  auto g = graph::build(graph_def{graph_def::current_version, std::move(nodes)});
  REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
  auto ex = executor::create(std::make_shared<const graph>(std::move(g).value()), dev);
  REQUIRE_MESSAGE(ex.ok(), ex.get_status().to_string());
  return std::move(ex).value();
}

// One step of a single-partition graph with one feed and one fetch.
status_or<tensor> run_once(executor& ex, const tensor& feed) {
  call_frame frame;
  frame.args = {feed};
  frame.rets.resize(1);
  cancellation_manager cm;
  status st = ex.run({1, &frame, &cm, nullptr}, std::chrono::seconds(10));
  if (!st.ok()) return st;
  return frame.rets[0];
}

// `values` in `dev`'s memory.
tensor on_device(accel_device& dev, const std::vector<float>& values) {
  auto t = dev.copy_in(tensor::from_vector<float>(values));
  REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
  REQUIRE(t->space() == &dev);
  return std::move(t).value();
}

node_def edge_attrs(node_def n, const std::string& key, const std::string& from,
                    const std::string& to) {
  n.attrs["tensor_name"] = key;
  n.attrs["send_device"] = from;
  n.attrs["send_device_incarnation"] = int64_t{7};
  n.attrs["recv_device"] = to;
  return n;
}
node_def send(const std::string& name, const std::string& input, const std::string& key,
              const std::string& from, const std::string& to) {
  return edge_attrs(node(name, "_Send", {input}, {{"T", dtype::float32}}), key, from, to);
}
node_def recv(const std::string& name, const std::string& key, const std::string& from,
              const std::string& to) {
  return edge_attrs(node(name, "_Recv", {}, {{"tensor_type", dtype::float32}}), key, from, to);
}
node_def retval_at(const std::string& name, const std::string& input, int64_t index) {
  return node(name, "_Retval", {input}, {{"T", dtype::float32}, {"index", index}});
}

struct actor_config : caf::actor_system_config {
  actor_config() {
    add_wire_types(*this);
    set("scheduler.max-threads", 2);
  }
};

}  // namespace

TEST_CASE("the registry has ACCEL between GPU and CPU, and makes it after CPU:0") {
  const device_registry& r = device_registry::global();
  CHECK(r.types() == std::vector<std::string>{device_gpu, device_accel, device_cpu});
  CHECK(r.priority(device_accel) == 150);
  CHECK(r.priority(device_cpu) == 70);
  CHECK(r.priority(device_gpu) == 210);
  CHECK(r.priority("TPU") == 0);
  CHECK_FALSE(r.host_memory(device_accel));
  CHECK(r.host_memory(device_cpu));
  CHECK(r.find("TPU") == nullptr);
  REQUIRE(r.find(device_accel) != nullptr);

  auto both = r.make_task_devices(no_gpu(), "localhost", 0);
  REQUIRE_MESSAGE(both.ok(), both.get_status().to_string());
  CHECK(names_of(*both) == std::vector<std::string>{cpu0, accel0});
  CHECK(both->at(1)->type() == device_accel);
  CHECK(both->at(1)->memory() != nullptr);
  CHECK(both->at(0)->memory() == nullptr);

  // Whatever GPUs this machine has, CPU:0 comes first and ACCEL:0 after every GPU (each GPU
  // takes memory as it needs it, so the check stays cheap on a machine with GPUs).
  device_options growing{.cpu = {.intra_op_threads = 1, .inter_op_threads = 1}};
  growing.gpu.allow_growth = true;
  auto all = r.make_task_devices(growing, "w", 3);
  REQUIRE_MESSAGE(all.ok(), all.get_status().to_string());
  REQUIRE(all->size() >= 2);
  CHECK(all->front()->name() == "/job:w/replica:0/task:3/device:CPU:0");
  CHECK(all->back()->name() == "/job:w/replica:0/task:3/device:ACCEL:0");

  auto no_accel = r.make_task_devices(no_gpu({{device_accel, 0}}), "localhost", 0);
  REQUIRE(no_accel.ok());
  CHECK(names_of(*no_accel) == std::vector<std::string>{cpu0});
  // Every task has CPU:0, whatever device_count says; more than there are is all there are.
  auto cpu_zero = r.make_task_devices(no_gpu({{device_cpu, 0}, {device_accel, 5}}), "localhost", 0);
  REQUIRE(cpu_zero.ok());
  CHECK(names_of(*cpu_zero) == std::vector<std::string>{cpu0, accel0});

  check_error(r.make_task_devices(no_gpu({{"TPU", 1}}), "localhost", 0),
              "device_count names the device type 'TPU', which this build does not have (it "
              "has: GPU, ACCEL, CPU)");
  check_error(r.make_task_devices(no_gpu({{device_accel, -1}}), "localhost", 0),
              "device_count for ACCEL is -1; it must be >= 0");
}

TEST_CASE("virtual devices split ACCEL as they split a GPU: one device per entry, each its "
          "own memory limit") {
  const device_registry& r = device_registry::global();
  device_options opts = no_gpu();
  opts.gpu.virtual_device_memory_mb = {1, 2};
  REQUIRE(r.find(device_accel)->count(opts) == 2);
  auto devices = r.make_task_devices(opts, "localhost", 0);
  REQUIRE_MESSAGE(devices.ok(), devices.get_status().to_string());
  CHECK(names_of(*devices) ==
        std::vector<std::string>{cpu0, accel0, "/job:localhost/replica:0/task:0/device:ACCEL:1"});
  device& first = *devices->at(1);
  device& second = *devices->at(2);
  CHECK(first.memory() != second.memory());  // two memories: values cross by copies
  // 1 MB on ACCEL:0: 200k floats fit, 300k do not; ACCEL:1 has 2 MB of its own.
  auto fits = tensor::allocate(first.get_allocator(), dtype::float32, tensor_shape{200000});
  REQUIRE(fits.ok());
  CHECK_FALSE(tensor::allocate(first.get_allocator(), dtype::float32, tensor_shape{100000}).ok());
  CHECK(tensor::allocate(second.get_allocator(), dtype::float32, tensor_shape{300000}).ok());
  auto copied = static_cast<accel_device&>(second).copy_in(*fits);
  REQUIRE(copied.ok());
  CHECK(copied->space() == second.memory());

  // What TF's ConfigProto refuses, refused before any device is made.
  device_options bad = no_gpu();
  bad.gpu.virtual_device_memory_mb = {1, 0};
  check_error(r.make_task_devices(bad, "localhost", 0),
              "virtual devices: 0 MB is not a device size (1 to 1048576 MB)");
  bad.gpu.virtual_device_memory_mb.assign(65, 1);
  check_error(r.make_task_devices(bad, "localhost", 0), "65 per GPU, more than 64");
}

TEST_CASE("ACCEL runs the aliased CPU kernels, with its own host-memory args") {
  const kernel_registry& k = kernel_registry::global();
  for (const auto& [op, host_args] : caflow::testing::accel_kernel_ops()) {
    CAPTURE(op);
    CHECK(!k.registered_types(op, device_accel).empty());
    CHECK(k.registered_types(op, device_accel) == k.registered_types(op, device_cpu));
  }
  const node_def sum = node("s", "Sum", {"x", "axes"},
                            {{"T", dtype::float32}, {"Tidx", dtype::int32}, {"keep_dims", false}});
  const node_def tile =
      node("t", "Tile", {"x", "m"}, {{"T", dtype::float32}, {"Tmultiples", dtype::int32}});
  const node_def cast = node(
      "c", "Cast", {"x"}, {{"SrcT", dtype::float32}, {"DstT", dtype::int32}, {"Truncate", false}});
  const node_def shape =
      node("sh", "Shape", {"x"}, {{"T", dtype::float32}, {"out_type", dtype::int32}});
  CHECK(k.has_kernel(sum, device_accel));
  CHECK(k.has_kernel(tile, device_cpu));
  CHECK_FALSE(k.has_kernel(tile, device_accel));
  CHECK(k.has_kernel(cast, device_cpu));
  CHECK_FALSE(k.has_kernel(cast, device_accel));
  CHECK(k.has_kernel(shape, device_accel));  // an any_device kernel

  const memory_types on_accel = k.memory_types_of(sum, device_accel);
  CHECK(on_accel.input_on_host == std::vector<bool>{false, true});
  CHECK(on_accel.output_on_host == std::vector<bool>{false});
  // The alias added host-memory args to ACCEL's copies only.
  const memory_types on_cpu = k.memory_types_of(sum, device_cpu);
  CHECK(std::none_of(on_cpu.input_on_host.begin(), on_cpu.input_on_host.end(),
                     [](bool b) { return b; }));
  CHECK(k.memory_types_of(shape, device_accel).output_on_host == std::vector<bool>{true});
  CHECK(k.memory_types_of(node("a", "_Arg", {}, {{"T", dtype::float32}, {"index", int64_t{0}}}),
                          device_accel)
            .output_on_host == std::vector<bool>{true});
}

TEST_CASE("the ACCEL arena: its tensors are in the device's memory, guarded and counted") {
  const int64_t violations = accel_stats().guard_violations.load();
  {
    accel_device dev(accel0, 1);
    CHECK(dev.get_allocator()->space() == &dev);
    CHECK(dev.space_name() == accel0);
    CHECK(dev.memory_stats().bytes_in_use == 0);
    tensor host = tensor::from_vector<float>({1, -2, 3});
    tensor in = on_device(dev, {1, -2, 3});
    CHECK(dev.arena().owns(in.raw_data()));
    CHECK(dev.memory_stats().bytes_in_use == 12);
    CHECK(dev.memory_stats().num_allocs == 1);
    // Already there: no copy. In host memory: to_host is the tensor itself.
    auto again = dev.copy_in(in);
    REQUIRE(again.ok());
    CHECK(again->shares_buffer_with(in));
    auto same = to_host(host);
    REQUIRE(same.ok());
    CHECK(same->shares_buffer_with(host));
    auto back = to_host(in);
    REQUIRE(back.ok());
    CHECK(back->space() == nullptr);
    check_tensor(*back, host);
    // Another device's memory goes through host memory.
    accel_device other("/job:localhost/replica:0/task:1/device:ACCEL:0", 1);
    auto moved = other.copy_in(in);
    REQUIRE(moved.ok());
    CHECK(moved->space() == &other);
    check_tensor(*to_host(*moved), host);
    check_error(other.copy_to_host(in), "in the memory of " + accel0);
  }
  CHECK(accel_stats().guard_violations.load() == violations);
}

TEST_CASE("a device actor reports its memory and copies between memories") {
  actor_config cfg;
  caf::actor_system sys{cfg};
  auto dev = std::make_shared<accel_device>(accel0, 1);
  device_actor actor = spawn_device_actor(sys, dev);
  caf::scoped_actor self{sys};
  auto stats = [&] {
    device_status out;
    self->request(actor, std::chrono::seconds(5), cf_dev_stats_atom::value)
        .receive([&](const device_status& s) { out = s; },
                 [&](caf::error& e) { out.name = "error: " + sys.render(e); });
    return out;
  };
  auto copy = [&](const tensor& t, bool to_host_memory) {
    tensor out;
    self->request(actor, std::chrono::seconds(5), cf_dev_copy_atom::value, wire_tensor{t},
                  to_host_memory)
        .receive([&](const wire_tensor& w) { out = w.value; },
                 [&](caf::error& e) { MESSAGE(sys.render(e)); });
    return out;
  };

  const device_status fresh = stats();
  CHECK(fresh.name == accel0);
  CHECK(fresh.type == "ACCEL");
  CHECK(fresh.bytes_in_use == 0);
  CHECK(fresh.bytes_limit == 0);

  auto scratch = tensor::allocate(dev->get_allocator(), dtype::float32, tensor_shape{256});
  REQUIRE(scratch.ok());
  const device_status one = stats();
  CHECK(one.bytes_in_use == 1024);
  CHECK(one.num_allocs == 1);

  const tensor host = tensor::from_vector<float>({0.5f, 1.5f, -2.5f, 4}, tensor_shape{2, 2});
  const tensor in = copy(host, false);
  CHECK(in.space() == dev.get());
  CHECK(in.shape() == tensor_shape{2, 2});
  CHECK(dev->arena().owns(in.raw_data()));
  const device_status two = stats();
  CHECK(two.bytes_in_use == 1024 + 16);
  CHECK(two.peak_bytes_in_use == 1024 + 16);
  CHECK(two.num_allocs == 2);

  const tensor out = copy(in, true);
  CHECK(out.space() == nullptr);
  check_tensor(out, host);
  CHECK(stats().bytes_in_use == 1024 + 16);  // the host copy is not the device's

  scratch = tensor();
  CHECK(stats().bytes_in_use == 16);
  CHECK(stats().peak_bytes_in_use == 1024 + 16);
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

TEST_CASE("the executor refuses an input in another memory than its kernel reads") {
  cpu_device cpu(cpu0, {.intra_op_threads = 1, .inter_op_threads = 1});
  accel_device accel(accel0, 1);

  SUBCASE("a CPU kernel fed a tensor in ACCEL memory") {
    auto ex = make_executor({arg("x"), unary("r", "Relu", "x"), retval("y", "r")}, cpu);
    check_error(run_once(*ex, on_device(accel, {1, -1})),
                "node 'r' (Relu) on " + cpu0 + ": input 0 is in the memory of " + accel0 +
                    " but the kernel reads it in host memory (a copy between memories is missing)");
    auto fine = run_once(*ex, tensor::from_vector<float>({1, -1}));
    REQUIRE_MESSAGE(fine.ok(), fine.get_status().to_string());
    check_tensor(*fine, tensor_shape{2}, std::vector<float>{1, 0});
  }
  SUBCASE("an ACCEL kernel fed a host tensor") {
    auto ex = make_executor({arg("x"), unary("r", "Relu", "x"), retval("y", "r")}, accel);
    check_error(run_once(*ex, tensor::from_vector<float>({1, -1})),
                "input 0 is in host memory but the kernel reads it in the memory of " + accel0 +
                    " (a copy between memories is missing)");
  }
  SUBCASE("an ACCEL kernel's output reaching a host-memory input") {
    auto ex = make_executor(
        {arg("x"), unary("in", "_CopyFromHost", "x"), unary("r", "Relu", "in"), retval("y", "r")},
        accel);
    check_error(run_once(*ex, tensor::from_vector<float>({1, -1})),
                "node 'y' (_Retval) on " + accel0 + ": input 0 is in the memory of " + accel0 +
                    " but the kernel reads it in host memory");
  }
  SUBCASE("with the copies, ACCEL computes in its arena and hands back host memory") {
    const int64_t in = accel_stats().copies_in.load(), out = accel_stats().copies_to_host.load();
    auto ex = make_executor({arg("x"), unary("in", "_CopyFromHost", "x"), unary("r", "Relu", "in"),
                             unary("back", "_CopyToHost", "r"), retval("y", "back")},
                            accel);
    auto y = run_once(*ex, tensor::from_vector<float>({2, -3, 0.5f}));
    REQUIRE_MESSAGE(y.ok(), y.get_status().to_string());
    CHECK(y->space() == nullptr);
    check_tensor(*y, tensor_shape{3}, std::vector<float>{2, 0, 0.5f});
    CHECK(accel_stats().copies_in.load() == in + 1);
    CHECK(accel_stats().copies_to_host.load() == out + 1);
  }
  SUBCASE("a reduction's axes: a HostConst is read in place, a device Const is refused") {
    const tensor axes = tensor::from_vector<int32_t>({0});
    auto sum_of = [&](const std::string& axes_op) {
      return make_executor(
          {arg("x"), unary("in", "_CopyFromHost", "x"),
           node("axes", axes_op, {}, {{"value", axes}, {"dtype", dtype::int32}}),
           node("s", "Sum", {"in", "axes"},
                {{"T", dtype::float32}, {"Tidx", dtype::int32}, {"keep_dims", false}}),
           unary("back", "_CopyToHost", "s"), retval("y", "back")},
          accel);
    };
    const tensor x = tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, tensor_shape{2, 3});
    auto host_axes = run_once(*sum_of("HostConst"), x);
    REQUIRE_MESSAGE(host_axes.ok(), host_axes.get_status().to_string());
    check_tensor(*host_axes, tensor_shape{3}, std::vector<float>{5, 7, 9});
    check_error(run_once(*sum_of("Const"), x), "node 's' (Sum) on " + accel0 +
                                                   ": input 1 is in the memory of " + accel0 +
                                                   " but the kernel reads it in host memory");
  }
}

TEST_CASE("cut edges between ACCEL and CPU memory: a _Send takes either, its _Recv copies") {
  cpu_device cpu(cpu0, {.intra_op_threads = 1, .inter_op_threads = 1});
  accel_device accel(accel0, 1);
  local_rendezvous rdv;
  auto on_accel = make_executor(
      {arg("x"), unary("in", "_CopyFromHost", "x"), unary("r", "Relu", "in"),
       send("send_r", "r", "r:0", accel0, cpu0), send("send_x", "x", "x:0", accel0, cpu0),
       recv("recv_y", "y:0", cpu0, accel0), unary("n", "Neg", "recv_y"),
       unary("back", "_CopyToHost", "n"), retval("ret_n", "back")},
      accel);
  auto on_cpu = make_executor({recv("recv_r", "r:0", accel0, cpu0), retval_at("ret_r", "recv_r", 0),
                               recv("recv_x", "x:0", accel0, cpu0), retval_at("ret_x", "recv_x", 1),
                               arg("y"), send("send_y", "y", "y:0", cpu0, accel0)},
                              cpu);
  const tensor x = tensor::from_vector<float>({-1, 2});
  const tensor y = tensor::from_vector<float>({3, -4});
  call_frame fa{{x}, std::vector<tensor>(1)}, fc{{y}, std::vector<tensor>(2)};
  cancellation_manager ca, cc;
  // A _Send never waits, so CPU:0's part may run first, then ACCEL:0's.
  status cpu_done = errors::internal("not run");
  std::thread cpu_part([&] {
    cpu_done = on_cpu->run({1, &fc, &cc, &rdv}, std::chrono::seconds(10));
  });
  const status accel_done = on_accel->run({1, &fa, &ca, &rdv}, std::chrono::seconds(10));
  if (!accel_done.ok()) rdv.abort_step(1, accel_done);  // wakes CPU:0's _Recvs
  cpu_part.join();
  REQUIRE_MESSAGE(accel_done.ok(), accel_done.to_string());
  REQUIRE_MESSAGE(cpu_done.ok(), cpu_done.to_string());
  rdv.cleanup_step(1);
  // r left ACCEL memory through its _Recv; x was in host memory all along (no copy).
  check_tensor(fc.rets[0], tensor_shape{2}, std::vector<float>{0, 2});
  CHECK(fc.rets[0].space() == nullptr);
  check_tensor(fc.rets[1], tensor_shape{2}, std::vector<float>{-1, 2});
  CHECK(fc.rets[1].shares_buffer_with(x));
  // y entered ACCEL memory through its _Recv, for Neg.
  check_tensor(fa.rets[0], tensor_shape{2}, std::vector<float>{-3, 4});
}

TEST_CASE("no ACCEL arena block was overrun or freed wrongly by the tests above") {
  CHECK(accel_stats().guard_violations.load() == 0);
}
