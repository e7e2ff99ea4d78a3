// A one-task cluster in one process (a worker and its master) whose task has a second device,
// the test accelerator ACCEL:0 (test_util/accel_device.hpp): the worker lists it, the master
// places on it by priority, falls back to CPU:0 for ops it has no kernel for, and every edge
// between the two memories gets its copy:
//
//            x ─▶ MatMul(w) ─▶ Relu ─┬─▶ Sum(axes) ─┬────────────▶ s      ACCEL:0
//                                    ├─▶ Shape ───── │ ───────────▶ sh     ACCEL:0, host output
//                                    └─▶ Tile(mult)  └─▶ Cast ────▶ c      CPU:0 (no ACCEL kernel)
//                                           └──────────────────────▶ t
//
// The axes and the multiples are Consts read in host memory only: they become HostConsts.
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <iostream>
#include <map>
#include <sstream>

#include "actors/master/master.hpp"
#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "actors/worker/worker.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/ir/serialization.hpp"
#include "net/errors.hpp"
#include "test_util/accel_device.hpp"
#include "test_util/kernel_fixture.hpp"

CAFLOW_TEST_REGISTER_ACCEL_DEVICE();

using namespace caflow;
using caflow::testing::accel_stats;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

const std::string task0 = "/job:localhost/replica:0/task:0";
const std::string cpu0 = task0 + "/device:CPU:0";
const std::string accel0 = task0 + "/device:ACCEL:0";

struct cluster_config : caf::actor_system_config {
  cluster_config() {
    add_wire_types(*this);
    set("scheduler.max-threads", 2);
  }
};

// The worker of task 0 (no GPU, whatever this machine has) and its master.
struct one_task {
  cluster_config cfg;
  caf::actor_system sys{cfg};
  worker_actor worker;
  master_actor master;

  explicit one_task(std::map<std::string, int> device_count = {}) {
    device_count.emplace(device_gpu, 0);
    worker = spawn_worker(sys, {.job = "localhost",
                                .task = 0,
                                .cpu = {.intra_op_threads = 1, .inter_op_threads = 1},
                                .device_count = std::move(device_count)});
    master = spawn_master(sys, {.job = "localhost",
                                .task = 0,
                                .workers = {{task0, worker}},
                                .step_timeout = std::chrono::seconds(10),
                                .rpc_timeout = std::chrono::seconds(10)});
  }
  ~one_task() {
    caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(worker, caf::exit_reason::user_shutdown);
  }

  status_or<std::string> create(const scope& s, session_config config = {}) {
    config.log_device_placement = true;
    config.constant_folding = false;  // keep the Consts and the CPU-side Cast of a Const
    caf::scoped_actor self{sys};
    status_or<std::string> out = errors::internal("no reply");
    self->request(master, std::chrono::seconds(10), cf_create_atom::value,
                  serialize_graph(s.to_graph_def()), config)
        .receive([&](const std::string& handle) { out = handle; },
                 [&](caf::error& e) { out = to_status(e); });
    return out;
  }

  status_or<run_step_reply> run(const std::string& session,
                                const std::vector<std::pair<output, tensor>>& feeds,
                                const std::vector<output>& fetches) {
    run_step_request req{session, {}, {}, {}, {}, 0, {}};
    for (const auto& [o, t] : feeds) {
      req.feed_names.push_back(o.name());
      req.feeds.push_back(wire_tensor{t});
    }
    for (const auto& o : fetches) req.fetches.push_back(o.name());
    caf::scoped_actor self{sys};
    status_or<run_step_reply> out = errors::internal("no reply");
    self->request(master, std::chrono::seconds(20), cf_step_atom::value, std::move(req))
        .receive([&](run_step_reply& reply) { out = std::move(reply); },
                 [&](caf::error& e) { out = to_status(e); });
    return out;
  }

  status_or<admin_reply> inspect(std::vector<std::string> words) {
    caf::scoped_actor self{sys};
    status_or<admin_reply> out = errors::internal("no reply");
    self->request(worker, std::chrono::seconds(10), cf_inspect_atom::value,
                  admin_query{std::move(words)})
        .receive([&](admin_reply& r) { out = std::move(r); },
                 [&](caf::error& e) { out = to_status(e); });
    return out;
  }

  std::vector<std::string> devices() {
    caf::scoped_actor self{sys};
    std::vector<std::string> out;
    self->request(worker, std::chrono::seconds(10), cf_devices_atom::value)
        .receive([&](const std::vector<std::string>& names) { out = names; },
                 [&](caf::error& e) { out = {"error: " + sys.render(e)}; });
    return out;
  }
};

// node -> (op, device), from a placement table ("node  op  device" rows).
std::map<std::string, std::pair<std::string, std::string>> parse_placement(const std::string& t) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  std::istringstream lines(t);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name, op, device;
    if (words >> name >> op >> device) out[name] = {op, device};
  }
  return out;
}

// The diagram above.
struct mlp_graph {
  scope root = scope::new_root();
  output x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {2, 3}});
  output w = ops::constant(root.with_op_name("w"), std::vector<float>{1, -1, -1, 0, 0, 1}, {3, 2});
  output m = ops::mat_mul(root.with_op_name("m"), x, w);
  output r = ops::relu(root.with_op_name("r"), m);
  output axes = ops::constant(root.with_op_name("axes"), std::vector<int32_t>{0}, {1});
  output s = ops::sum(root.with_op_name("s"), r, axes);
  output sh = ops::shape(root.with_op_name("sh"), r);
  output mult = ops::constant(root.with_op_name("mult"), std::vector<int32_t>{2, 1}, {2});
  output t = ops::tile(root.with_op_name("t"), r, mult);
  output c = ops::cast(root.with_op_name("c"), s, dtype::int32);

  // x w = [[-1, 2], [-9, 10]]; relu: [[0, 2], [0, 10]].
  const tensor x_value = tensor::from_vector<float>({1, 2, 3, -4, 5, 6}, {2, 3});
  std::vector<output> fetches() const { return {s, sh, t, c, r}; }
  static void check(const std::vector<tensor>& out) {
    REQUIRE(out.size() == 5);
    check_tensor(out[0], tensor_shape{2}, std::vector<float>{0, 12});
    check_tensor(out[1], tensor_shape{2}, std::vector<int32_t>{2, 2});
    check_tensor(out[2], tensor_shape{4, 2}, std::vector<float>{0, 2, 0, 10, 0, 2, 0, 10});
    check_tensor(out[3], tensor_shape{2}, std::vector<int32_t>{0, 12});
    check_tensor(out[4], tensor_shape{2, 2}, std::vector<float>{0, 2, 0, 10});
    // Fetches leave in host memory.
    for (const tensor& t : out) CHECK(t.space() == nullptr);
  }
};

std::vector<tensor> values_of(const run_step_reply& r) {
  std::vector<tensor> out;
  for (const auto& w : r.fetches) out.push_back(w.value);
  return out;
}

// Captures what the session prints to stderr while alive.
struct stderr_capture {
  std::ostringstream text;
  std::streambuf* old = std::cerr.rdbuf(text.rdbuf());
  ~stderr_capture() { std::cerr.rdbuf(old); }
};

}  // namespace

TEST_CASE("the worker lists CPU:0 and ACCEL:0, and the console's devices shows both") {
  one_task c;
  CHECK(c.devices() == std::vector<std::string>{cpu0, accel0});
  auto table = c.inspect({"devices"});
  REQUIRE_MESSAGE(table.ok(), table.get_status().to_string());
  CHECK(table->table.columns ==
        std::vector<std::string>{"task", "device", "in use", "peak", "allocations", "limit"});
  REQUIRE(table->table.rows.size() == 2);
  CHECK(table->table.rows[0][0] == task0);
  CHECK(table->table.rows[0][1] == cpu0);
  CHECK(table->table.rows[1][0] == task0);
  CHECK(table->table.rows[1][1] == accel0);
  CHECK(table->table.rows[1][4] == "0");  // nothing allocated on ACCEL:0 yet

  // After a step, ACCEL:0 has allocated (its arena held MatMul's and Relu's outputs).
  mlp_graph g;
  auto handle = c.create(g.root);
  REQUIRE_MESSAGE(handle.ok(), handle.get_status().to_string());
  auto out = c.run(*handle, {{g.x, g.x_value}}, g.fetches());
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  auto after = c.inspect({"devices"});
  REQUIRE(after.ok());
  REQUIRE(after->table.rows.size() == 2);
  CHECK(std::stoll(after->table.rows[1][4]) >= 3);

  one_task without_accel({{"ACCEL", 0}});
  CHECK(without_accel.devices() == std::vector<std::string>{cpu0});
  // A device_count the registry cannot meet leaves the task its CPU (and logs why).
  one_task unknown_type({{"TPU", 1}});
  CHECK(unknown_type.devices() == std::vector<std::string>{cpu0});
}

TEST_CASE("the master places on ACCEL:0 by priority, on CPU:0 what ACCEL cannot run") {
  one_task c;
  mlp_graph g;
  auto handle = c.create(g.root);
  REQUIRE_MESSAGE(handle.ok(), handle.get_status().to_string());
  auto out = c.run(*handle, {{g.x, g.x_value}}, g.fetches());
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  mlp_graph::check(values_of(*out));

  // The same values as a local session, which runs everything on its CPU.
  session local(g.root, {.cpu = {.intra_op_threads = 1, .inter_op_threads = 1}});
  auto on_cpu = local.run({{g.x, g.x_value}}, g.fetches());
  REQUIRE_MESSAGE(on_cpu.ok(), on_cpu.get_status().to_string());
  for (size_t i = 0; i < on_cpu->size(); ++i) check_tensor(out->fetches[i].value, on_cpu->at(i));

  const auto placed = parse_placement(out->placement);
  INFO(out->placement);
  for (const char* n : {"m", "r", "s", "sh", "axes", "mult", "w"}) {
    CAPTURE(n);
    REQUIRE(placed.count(n));
    CHECK(placed.at(n).second == accel0);
  }
  for (const char* n : {"t", "c"}) {
    CAPTURE(n);
    REQUIRE(placed.count(n));
    CHECK(placed.at(n).second == cpu0);
  }
  CHECK(placed.at("t").first == "Tile");
  CHECK(placed.at("c").first == "Cast");

  // Step after step through the cached partitions: same values.
  for (int i = 0; i < 3; ++i) {
    auto again = c.run(*handle, {{g.x, g.x_value}}, g.fetches());
    REQUIRE_MESSAGE(again.ok(), again.get_status().to_string());
    mlp_graph::check(values_of(*again));
    CHECK(again->placement.empty());  // reported by the step that planned the signature only
  }
}

TEST_CASE("host-memory args stay on the host: HostConst axes, Shape's host output, one copy in") {
  one_task c;
  mlp_graph g;
  auto handle = c.create(g.root);
  REQUIRE_MESSAGE(handle.ok(), handle.get_status().to_string());
  REQUIRE(c.run(*handle, {{g.x, g.x_value}}, g.fetches()).ok());  // plans and builds kernels

  REQUIRE(c.inspect({"trace", "on"}).ok());
  const int64_t in_before = accel_stats().copies_in.load();
  auto out = c.run(*handle, {{g.x, g.x_value}}, g.fetches());
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  mlp_graph::check(values_of(*out));
  // Per step, only the feed enters ACCEL memory: the Consts were placed there when their
  // kernels were built (w) or never (the axes and multiples, HostConsts).
  CHECK(accel_stats().copies_in.load() - in_before == 1);
  auto trace = c.inspect({"trace", "collect"});
  REQUIRE_MESSAGE(trace.ok(), trace.get_status().to_string());
  REQUIRE(c.inspect({"trace", "off"}).ok());

  std::map<std::string, trace_event> ran;
  std::string all;
  for (const trace_event& e : trace->events) {
    ran[e.node] = e;
    all += e.node + " " + e.op + " " + e.device + "\n";
  }
  INFO(all);
  for (const char* n : {"m", "r", "s", "sh", "axes", "mult"}) {
    CAPTURE(n);
    REQUIRE(ran.count(n));
    CHECK(ran.at(n).device == accel0);
  }
  CHECK(ran.at("axes").op == "HostConst");
  CHECK(ran.at("mult").op == "HostConst");  // sent to CPU:0's Tile only
  CHECK(ran.at("t").device == cpu0);
  CHECK(ran.at("c").device == cpu0);
  // No copy of the axes either way, none of Shape's output, one of the feed into ACCEL memory.
  int from_host = 0;
  for (const auto& [name, e] : ran) {
    CHECK(name.find("axes") == (name == "axes" ? 0 : std::string::npos));
    CHECK(name.find("_sh_") == std::string::npos);
    if (e.op == "_CopyFromHost") {
      ++from_host;
      CHECK(e.device == accel0);
    }
  }
  CHECK(from_host == 1);
}

TEST_CASE("cross-device edges both ways: a value computed on CPU:0 comes back into ACCEL memory") {
  //   ACCEL:0 m = MatMul ─▶ CPU:0 n = Neg ─▶ ACCEL:0 r = Relu ─▶ Sum(axes from CPU:0's Cast)
  one_task c;
  auto root = scope::new_root();
  auto cpu = root.with_device("/device:CPU:0");
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {2, 2}});
  auto w = ops::constant(root.with_op_name("w"), std::vector<float>{1, 0, 0, -1}, {2, 2});
  auto m = ops::mat_mul(root.with_op_name("m"), x, w);
  auto n = ops::neg(cpu.with_op_name("n"), m);
  auto r = ops::relu(root.with_op_name("r"), n);
  auto axes_f = ops::constant(root.with_op_name("axes_f"), std::vector<float>{1}, {1});
  auto axes = ops::cast(root.with_op_name("axes"), axes_f, dtype::int32);  // CPU:0: no ACCEL Cast
  auto s = ops::sum(root.with_op_name("s"), r, axes);
  auto handle = c.create(root);
  REQUIRE_MESSAGE(handle.ok(), handle.get_status().to_string());

  const tensor xv = tensor::from_vector<float>({1, 2, -3, 4}, {2, 2});
  auto first = c.run(*handle, {{x, xv}}, {s, r});
  REQUIRE_MESSAGE(first.ok(), first.get_status().to_string());
  const auto placed = parse_placement(first->placement);
  INFO(first->placement);
  CHECK(placed.at("m").second == accel0);
  CHECK(placed.at("n").second == cpu0);
  CHECK(placed.at("r").second == accel0);
  CHECK(placed.at("axes").second == cpu0);
  CHECK(placed.at("s").second == accel0);
  // x w = [[1, -2], [-3, -4]]; -: [[-1, 2], [3, 4]]; relu: [[0, 2], [3, 4]]; rows: [2, 7].
  check_tensor(first->fetches[0].value, tensor_shape{2}, std::vector<float>{2, 7});
  check_tensor(first->fetches[1].value, tensor_shape{2, 2}, std::vector<float>{0, 2, 3, 4});

  // Per step: the feed and Neg's result enter ACCEL memory; the axes arrive on the host
  // (recv_on_host), so they are never copied in.
  const int64_t in_before = accel_stats().copies_in.load();
  auto again = c.run(*handle, {{x, xv}}, {s, r});
  REQUIRE_MESSAGE(again.ok(), again.get_status().to_string());
  check_tensor(again->fetches[0].value, tensor_shape{2}, std::vector<float>{2, 7});
  CHECK(accel_stats().copies_in.load() - in_before == 2);
}

TEST_CASE("an op pinned to ACCEL without an ACCEL kernel: an error, or CPU:0 with soft placement") {
  auto root = scope::new_root();
  auto x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {2}});
  auto r = ops::relu(root.with_op_name("r"), x);
  auto t = ops::tile(root.with_op_name("t").with_device("/device:ACCEL:0"), r, {3});
  {
    one_task c;
    auto strict = c.create(root);
    status st = strict.ok()
                    ? c.run(*strict, {{x, tensor::from_vector<float>({1, -1})}}, {t}).get_status()
                    : strict.get_status();
    REQUIRE_FALSE(st.ok());
    CHECK(st.message().find("cannot place") != std::string::npos);
    CHECK(st.message().find("ACCEL") != std::string::npos);
    CHECK(st.message().find("Tile") != std::string::npos);
  }
  one_task c;
  session_config soft;
  soft.allow_soft_placement = true;
  auto handle = c.create(root, soft);
  REQUIRE_MESSAGE(handle.ok(), handle.get_status().to_string());
  auto out = c.run(*handle, {{x, tensor::from_vector<float>({1, -1})}}, {t});
  REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  check_tensor(out->fetches[0].value, tensor_shape{6}, std::vector<float>{1, 0, 1, 0, 1, 0});
  const auto placed = parse_placement(out->placement);
  INFO(out->placement);
  CHECK(placed.at("t").second == cpu0);
  CHECK(placed.at("r").second == accel0);
}

TEST_CASE("a client session on a local server places on ACCEL:0 and logs it") {
  auto srv = create_local_server({.intra_op_threads = 1, .inter_op_threads = 1});
  REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
  mlp_graph g;
  stderr_capture err;
  {
    session sess(g.root, {.target = (*srv)->target(), .log_device_placement = true});
    auto out = sess.run({{g.x, g.x_value}}, g.fetches());
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    mlp_graph::check(*out);
  }
  const std::string text = err.text.str();
  const auto placed = parse_placement(text.substr(text.find("device placement") + 17));
  INFO(text);
  REQUIRE(placed.count("m"));
  REQUIRE(placed.count("t"));
  // This server's task has every GPU the machine has: those come before ACCEL.
  if (text.find("device:GPU") == std::string::npos) {
    CHECK(placed.at("m").second == accel0);
    CHECK(placed.at("t").second == cpu0);
  } else {
    CHECK(placed.at("m").second.find("/device:GPU:") != std::string::npos);
  }
}

TEST_CASE("no ACCEL arena block was overrun or freed wrongly by the tests above") {
  CHECK(accel_stats().guard_violations.load() == 0);
}
