// caflow-console against three caflow-server processes on 127.0.0.1 (one ps, two workers):
// a session from this test trains a variable on the ps through steps that span all three tasks,
// then the console (through --exec, and interactively inside tmux) must show the cluster, its
// devices, sessions, partitions, step latency, variables, a stuck Recv, and save a trace with
// events of every task.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <future>
#include <regex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "actors/session/session.hpp"
#include "commands.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/partitioned_variable.hpp"
#include "test_util/console_run.hpp"
#include "test_util/process.hpp"
#include "test_util/three_process_cluster.hpp"
#include "trace_file.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::has_row;
using caflow::testing::run_console;

namespace {

const char* const ps_task = "/job:ps/replica:0/task:0";
const char* const worker0_task = "/job:worker/replica:0/task:0";
const char* const worker1_task = "/job:worker/replica:0/task:1";

// Servers that log at info level, with a second inter-op thread so a step stuck on a _Recv
// (the `pending` case) leaves one free.
struct three_servers : caflow::testing::three_process_cluster {
  three_servers()
      : three_process_cluster({"--inter-op-threads", "2", "--log-level", "info"}) {}
};

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// The model: w (on the ps) scales a fed x on worker 1; worker 0 sums; the update adds the
// product back into w. With x = [1, 1, 1] every training step doubles w.
struct model {
  scope root = scope::new_root();
  scope ps = root.with_device("/job:ps/task:0");
  scope w1 = root.with_device("/job:worker/task:1");
  output w = ops::variable(ps.with_op_name("w"), partial_shape{3}, dtype::float32);
  output init = ops::assign(ps.with_op_name("init"), w,
                               ops::constant(ps, std::vector<float>{1, 2, 3}, {3}));
  output x = ops::placeholder(root.with_op_name("x"), dtype::float32, {.shape = {3}});
  output prod = ops::mul(w1.with_op_name("prod"), x, w);
  output total = ops::sum(root.with_op_name("total"), prod, std::vector<int>{0});
  output update = ops::assign_add(ps.with_op_name("update"), w, prod);
};

session_options remote(const std::string& address) {
  session_options o;
  o.target = "caflow://" + address;
  o.connect_timeout = 15s;
  o.operation_timeout = 60s;
  return o;
}

void train_steps(session& sess, model& m, int steps) {
  for (int i = 0; i < steps; ++i) {
    auto out = sess.run({{m.x, tensor::from_vector<float>({1, 1, 1})}}, {m.total, m.update});
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
  }
}

// A row of a printed table whose cells match `cells` in order (whitespace between them).
// --- tmux ------------------------------------------------------------------------------------

// tmux's full path (child_process does not search PATH), or empty when it is not installed.
std::string tmux_path() {
  std::string path;
  if (FILE* f = ::popen("command -v tmux 2>/dev/null", "r")) {
    char buf[512];
    if (std::fgets(buf, sizeof buf, f)) path = buf;
    ::pclose(f);
  }
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  return path;
}

// A tmux server on its own socket, killed (with the console in it) when this goes away.
struct tmux_session {
  std::string tmux;
  std::string socket = "caflow_console_test_" + std::to_string(::getpid());

  int run(std::vector<std::string> args, std::string* out = nullptr) {
    args.insert(args.begin(), {tmux, "-L", socket});
    child_process p(args);
    const int raw = p.wait_exit(10s);
    if (out) *out = p.output();
    return raw >= 0 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  }
  std::string capture() {
    std::string out;
    run({"capture-pane", "-p", "-t", "console"}, &out);
    return out;
  }
  // Polls the pane until `pred` holds (bounded).
  template <class Pred>
  bool wait_for(Pred pred, std::chrono::milliseconds timeout, std::string* last) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      *last = capture();
      if (pred(*last)) return true;
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(100ms);
    }
  }
  ~tmux_session() { run({"kill-server"}); }
};

}  // namespace

TEST_CASE("tables pad every column to its widest cell, with a rule under the header") {
  admin_table t;
  t.columns = {"task", "n"};
  t.rows = {{"/job:ps", "1234"}, {"/job:worker/task:1", "5"}};
  t.notes = {"one task was slow"};
  CHECK(console::format_table(t) ==
        "task                n\n"
        "------------------  ----\n"
        "/job:ps             1234\n"
        "/job:worker/task:1  5\n"
        "note: one task was slow\n");
  admin_table empty;
  empty.columns = {"task", "step"};
  CHECK(console::format_table(empty) == "task  step\n----  ----\n(none)\n");
}

TEST_CASE("--exec scripts split on ';' and words on blanks") {
  CHECK(console::split_commands(" cluster;vars ; ;trace save /tmp/a b.json;") ==
        std::vector<std::string>{"cluster", "vars", "trace save /tmp/a b.json"});
  CHECK(console::split_commands("").empty());
  CHECK(console::split_words("  var   w/kernel ") == std::vector<std::string>{"var", "w/kernel"});
}

TEST_CASE("caflow-console --help prints its usage and exits 0; a bad flag exits 2") {
  child_process help({CAFLOW_CONSOLE_BINARY, "--help"});
  const int raw = help.wait_exit(30s);
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 0);
  CHECK(help.output().find("usage: caflow-console --connect HOST:PORT") != std::string::npos);
  CHECK(help.output().find("caflow-console: help") == std::string::npos);
  child_process bad({CAFLOW_CONSOLE_BINARY, "--colour", "red"});
  const int bad_raw = bad.wait_exit(30s);
  REQUIRE(WIFEXITED(bad_raw));
  CHECK(WEXITSTATUS(bad_raw) == 2);
  CHECK(bad.output().find("caflow-console: unknown flag '--colour'") != std::string::npos);
}

TEST_CASE("caflow-console reports a refused connection at once, not after its timeout") {
  // Nothing listens on the port: the console says so instead of retrying for two minutes.
  const int port = caflow::testing::free_ports(1)[0];
  child_process refused({CAFLOW_CONSOLE_BINARY, "--connect", "127.0.0.1:" + std::to_string(port),
                         "--connect-timeout-ms", "120000", "--exec", "cluster"});
  const int raw = refused.wait_exit(60s);
  REQUIRE_MESSAGE(raw >= 0, "still retrying: ", refused.output());
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 1);
  CHECK(refused.output().find("cannot connect to 127.0.0.1:" + std::to_string(port) +
                              ": Connection refused") != std::string::npos);
}

TEST_CASE("Chrome trace JSON: a process per task, a thread per device, times from the first") {
  std::vector<trace_event> events = {
      {"/job:worker/replica:0/task:1", "/job:worker/replica:0/task:1/device:CPU:0", "prod", "Mul",
       "", 5, 1'000'300, 20, -1},
      {"/job:ps/replica:0/task:0", "/job:ps/replica:0/task:0/device:CPU:0", "send_w", "_Send",
       "/job:worker/replica:0/task:1/device:CPU:0", 5, 1'000'100, 3, 12},
  };
  const auto j = nlohmann::json::parse(console::chrome_trace_json(events));
  const auto& all = j.at("traceEvents");
  REQUIRE(all.size() == 6);  // 2 process names, 2 thread names, 2 nodes
  // Tasks sorted by name: the ps is process 1.
  CHECK(all[0] == nlohmann::json::parse(
                      R"({"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"/job:ps/replica:0/task:0"}})"));
  CHECK(all[1].at("args").at("name") == "/job:worker/replica:0/task:1");
  CHECK(all[2].at("name") == "thread_name");
  CHECK(all[2].at("args").at("name") == "/job:ps/replica:0/task:0/device:CPU:0");
  const auto& prod = all[4];
  CHECK(prod.at("ph") == "X");
  CHECK(prod.at("pid") == 2);
  CHECK(prod.at("tid") == 1);
  CHECK(prod.at("ts") == 200);  // 1'000'300 - the earliest start, 1'000'100
  CHECK(prod.at("dur") == 20);
  CHECK_FALSE(prod.at("args").contains("bytes"));
  const auto& send = all[5];
  CHECK(send.at("ts") == 0);
  CHECK(send.at("args").at("bytes") == 12);
  CHECK(send.at("args").at("peer") == "/job:worker/replica:0/task:1/device:CPU:0");
  // A string: JavaScript would round step ids above 2^53.
  CHECK(send.at("args").at("step") == "5");
}

TEST_CASE("caflow-console shows a live three-task cluster and saves its trace") {
  three_servers c;
  REQUIRE(c.ready());
  model m;
  session sess(m.root, remote(c.address(1)));
  REQUIRE(sess.run({m.init}).ok());
  train_steps(sess, m, 3);  // w = [8, 16, 24]

  SUBCASE("--exec: cluster, devices, sessions, graphs, steps, vars, var") {
    // Asked through the ps: every answer covers the whole cluster.
    auto r = run_console(c.address(0), "cluster; devices; sessions; graphs; steps; vars; var w");
    MESSAGE(r.output);
    REQUIRE(r.exit_code == 0);
    for (const auto* task : {ps_task, worker0_task, worker1_task}) {
      CHECK(has_row(r.output, {task, "127\\.0\\.0\\.1:\\d+", "alive", "[0-9.]+ s"}));
      CHECK(has_row(r.output, {task, std::string(task) + "/device:CPU:0", "[0-9.]+ [KMG]?i?B"}));
    }
    // The session lives on worker 0's master: init and three training steps so far.
    CHECK(has_row(r.output, {worker0_task, "session_\\d+", "\\d+", "2", "4", "-"}));
    // The training signature is cut into partitions on all three tasks.
    for (const auto* task : {ps_task, worker0_task, worker1_task})
      CHECK(has_row(r.output, {worker0_task, "session_\\d+", "\\d+", task,
                               std::string(task) + "/device:CPU:0", "\\d+"}));
    CHECK(has_row(r.output, {worker0_task, "session_\\d+", "4", "0", "[0-9.]+ [mu]?s",
                             "[0-9.]+ [mu]?s"}));
    // |[8, 16, 24]| = sqrt(64 + 256 + 576) = sqrt(896) = 29.933259...
    CHECK(has_row(r.output, {ps_task, "w", "float32", "\\[3\\]", "29\\.933259"}));
    CHECK(has_row(r.output, {ps_task, "w", "float32", "\\[3\\]", "\\{8, 16, 24\\}"}));
  }

  SUBCASE("a partitioned variable is one entry with its shards, tasks and sizes") {
    // emb [10,4] in 3 shards: 0 and 2 on the ps, 1 on worker 1 (so the entry spans tasks).
    auto root = scope::new_root().with_device_function([](const node_def& n) -> std::string {
      if (n.op != "VariableV2") return n.device;
      return n.name.ends_with("part_1") ? "/job:worker/task:1" : "/job:ps/task:0";
    });
    const tensor full = tensor::from_vector<float>(
        [] {
          std::vector<float> v(40);
          for (int i = 0; i < 40; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
          return v;
        }(),
        {10, 4});
    auto emb = train::create_partitioned_variable(root, "emb", ops::constant(root, full),
                                                  train::fixed_size_partitioner(3));
    auto init = train::global_variables_initializer(root, train::variable_set(emb.shards));
    REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
    session s2(root, remote(c.address(1)));
    REQUIRE(s2.run_targets({init}).ok());

    auto r = run_console(c.address(2), "vars; var emb; var emb/part_1");
    MESSAGE(r.output);
    REQUIRE(r.exit_code == 0);
    // |0..39| = sqrt(20540) = 143.317829; 40 floats = 160 bytes.
    CHECK(has_row(r.output, {"2 tasks", "emb", "float32", "\\[10,4\\]", "143\\.317829",
                             "3 shards, 160 B"}));
    CHECK(has_row(r.output, {ps_task, "emb/part_0", "float32", "\\[4,4\\]", "35\\.213634",
                             "rows \\[0,4\\), 64 B, CPU:0"}));
    CHECK(has_row(r.output, {worker1_task, "emb/part_1", "float32", "\\[3,4\\]",
                             "75\\.432089", "rows \\[4,7\\), 48 B, CPU:0"}));
    CHECK(has_row(r.output, {ps_task, "emb/part_2", "float32", "\\[3,4\\]",
                             "116\\.661905", "rows \\[7,10\\), 48 B, CPU:0"}));
    // var emb: the whole value, rows in order, truncated as for any variable.
    CHECK(has_row(r.output, {"2 tasks", "emb", "float32", "\\[10,4\\]",
                             "\\{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, \\.\\.\\. \\(28 more\\)\\}",
                             "3 shards, 160 B"}));
    CHECK(has_row(r.output, {worker1_task, "emb/part_1", "float32", "\\[3,4\\]",
                             "\\{16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27\\}",
                             "rows \\[4,7\\) of emb \\[10,4\\]"}));
  }

  SUBCASE("summaries and logdir: the last value of each tag a session's client reported") {
    auto now_us = [] {
      return std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
    auto empty = run_console(c.address(0), "summaries; logdir");
    REQUIRE(empty.exit_code == 0);
    CHECK(contains(empty.output, "no session has reported summaries"));
    REQUIRE(sess.report_summaries({"/tmp/tb", "/tmp/tb/events.out.tfevents.1.host",
                                   {{"loss", 10, 0.5, now_us()}, {"accuracy", 10, 0.75, now_us()}}})
                .ok());
    // Newer steps replace a tag's value; an older one that arrives late does not.
    REQUIRE(sess.report_summaries({"", "", {{"loss", 20, 0.25, now_us()}}}).ok());
    REQUIRE(sess.report_summaries({"", "", {{"loss", 5, 9.0, now_us()}}}).ok());
    caflow::testing::console_run r;
    for (int i = 0; i < 50; ++i) {  // the reports are not waited for: poll, bounded
      r = run_console(c.address(0), "summaries; logdir");
      if (has_row(r.output, {worker0_task, "session_\\d+", "loss", "20"})) break;
      std::this_thread::sleep_for(100ms);
    }
    MESSAGE(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(has_row(r.output, {worker0_task, "session_\\d+", "accuracy", "10", "0\\.75",
                             "[0-9.]+ [mu]?s ago"}));
    CHECK(has_row(r.output, {worker0_task, "session_\\d+", "loss", "20", "0\\.25"}));
    CHECK_FALSE(has_row(r.output, {worker0_task, "session_\\d+", "loss", "5"}));
    CHECK(has_row(r.output, {worker0_task, "session_\\d+", "/tmp/tb",
                             "/tmp/tb/events\\.out\\.tfevents\\.1\\.host"}));
  }

  SUBCASE("a traced step reports every node each task ran for it") {
    step_metadata md;
    auto out = sess.run(step_options{.trace = true}, {{m.x, tensor::from_vector<float>({1, 1, 1})}},
                        {m.total}, {}, &md);
    REQUIRE_MESSAGE(out.ok(), out.get_status().to_string());
    std::map<std::string, std::string> device_of;  // node -> device
    for (const trace_event& e : md.nodes) {
      device_of[e.node] = e.device;
      CHECK(e.start_us > 1'700'000'000'000'000);
      CHECK(e.dur_us >= 0);
    }
    CHECK(device_of["prod"] == std::string(worker1_task) + "/device:CPU:0");
    CHECK(device_of["total"] == std::string(worker0_task) + "/device:CPU:0");
    CHECK(device_of["w"] == std::string(ps_task) + "/device:CPU:0");
    // An untraced step reports nothing.
    auto plain = sess.run(step_options{}, {{m.x, tensor::from_vector<float>({1, 1, 1})}},
                          {m.total}, {}, &md);
    REQUIRE(plain.ok());
    CHECK(md.nodes.empty());
  }

  SUBCASE("--exec stops at the first error, naming the command") {
    auto r = run_console(c.address(2), "cluster; var nope; steps");
    CHECK(r.exit_code == 1);
    CHECK(contains(r.output, "alive"));
    CHECK(contains(r.output, "var nope: "));
    CHECK(contains(r.output, "no variable 'nope' on any task"));
    CHECK_FALSE(contains(r.output, "p50"));  // `steps` never ran
    auto bad = run_console(c.address(2), "clusterr");
    CHECK(bad.exit_code == 1);
    CHECK(contains(bad.output, "unknown command 'clusterr'"));
  }

  SUBCASE("trace on, steps, trace save: Chrome trace JSON with events of every task") {
    const auto path = std::filesystem::temp_directory_path() /
                      ("caflow_console_trace_" + std::to_string(::getpid()) + ".json");
    auto on = run_console(c.address(1), "trace on");
    REQUIRE(on.exit_code == 0);
    CHECK(has_row(on.output, {worker1_task, "on"}));
    train_steps(sess, m, 10);
    auto saved = run_console(c.address(1), "trace save " + path.string() + "; trace off");
    MESSAGE(saved.output);
    REQUIRE(saved.exit_code == 0);
    CHECK(contains(saved.output, "from 3 tasks (3 devices) to " + path.string()));
    // A task may be named without its replica, as in TF's "/job:ps/task:0".
    auto ps_only = run_console(c.address(1), "trace on /job:ps/task:0; trace off /job:ps/task:0");
    CHECK(ps_only.exit_code == 0);
    CHECK(has_row(ps_only.output, {ps_task, "on"}));
    CHECK(has_row(ps_only.output, {ps_task, "off"}));
    CHECK_FALSE(contains(ps_only.output, worker0_task));

    std::ifstream f(path);
    REQUIRE(f.good());
    const auto trace = nlohmann::json::parse(f);
    std::filesystem::remove(path);
    std::map<int, std::string> process_names;
    std::map<std::pair<int, int>, std::string> thread_names;
    std::set<std::string> nodes_per_task, send_recv;
    std::map<std::pair<std::string, std::string>, int64_t> send_starts, recv_ends;
    for (const auto& e : trace.at("traceEvents")) {
      const int pid = e.at("pid");
      if (e.at("ph") == "M" && e.at("name") == "process_name")
        process_names[pid] = e.at("args").at("name");
      if (e.at("ph") == "M" && e.at("name") == "thread_name")
        thread_names[{pid, e.at("tid").get<int>()}] = e.at("args").at("name");
    }
    REQUIRE(process_names.size() == 3);
    REQUIRE(thread_names.size() == 3);
    for (const auto& e : trace.at("traceEvents")) {
      if (e.at("ph") != "X") continue;
      const int pid = e.at("pid");
      const std::string task = process_names.at(pid);
      const std::string device = thread_names.at({pid, e.at("tid").get<int>()});
      CHECK(device == task + "/device:CPU:0");
      CHECK(e.at("dur").get<int64_t>() >= 0);
      CHECK(e.at("ts").get<int64_t>() >= 0);
      nodes_per_task.insert(task + " " + e.at("name").get<std::string>());
      const std::string op = e.at("args").at("op");
      if (op == "_Send" || op == "_Recv") {
        CHECK(e.at("args").at("bytes").get<int64_t>() >= 4);  // a float32 scalar at least
        CHECK(contains(e.at("args").at("peer").get<std::string>(), "/device:CPU:0"));
        send_recv.insert(task + " " + op);
        // Paired by rendezvous key and step (a string: ids above 2^53 would be rounded).
        const auto pair = std::pair{e.at("args").at("key").get<std::string>(),
                                    e.at("args").at("step").get<std::string>()};
        const int64_t ts = e.at("ts"), dur = e.at("dur");
        if (op == "_Send") {
          send_starts[pair] = ts;
        } else {
          recv_ends[pair] = ts + dur;
        }
      }
    }
    // One host, one clock: once the peers' clocks are aligned, no _Recv can end before its
    // _Send began (the value cannot arrive before it is sent).
    size_t pairs = 0;
    for (const auto& [pair, recv_end] : recv_ends) {
      auto send = send_starts.find(pair);
      if (send == send_starts.end()) continue;
      ++pairs;
      CHECK_MESSAGE(recv_end >= send->second, "the _Recv of ", pair.first, " in step ", pair.second,
                    " ends at ", recv_end, " us, before its _Send starts at ", send->second, " us");
    }
    CHECK(pairs >= 10);
    CHECK(nodes_per_task.count(std::string(ps_task) + " update"));
    CHECK(nodes_per_task.count(std::string(worker1_task) + " prod"));
    CHECK(nodes_per_task.count(std::string(worker0_task) + " total"));
    // Worker 0 only receives: the fed x goes to worker 1 in its run request (const_copies).
    for (const auto* task : {ps_task, worker1_task})
      CHECK(send_recv.count(std::string(task) + " _Send"));
    for (const auto* task : {ps_task, worker0_task, worker1_task})
      CHECK(send_recv.count(std::string(task) + " _Recv"));
  }

  SUBCASE("pending shows a Recv stuck on an empty queue; abort ends its step") {
    auto ps = m.root.with_device("/job:ps/task:0");
    auto q = ops::fifo_queue(ps.with_op_name("q"), {dtype::float32});
    auto taken = ops::queue_dequeue(ps.with_op_name("take"), q, {dtype::float32});
    auto doubled = ops::mul(m.w1.with_op_name("doubled"), taken[0], ops::constant(m.w1, 2.0f));
    auto stuck = std::async(std::launch::async, [&] { return sess.run({doubled}); });
    // Wait until worker 1's Recv of the dequeued value is listed.
    std::string pending_output, step_id;
    for (int i = 0; i < 100 && step_id.empty(); ++i) {
      auto r = run_console(c.address(0), "pending");
      REQUIRE(r.exit_code == 0);
      pending_output = r.output;
      std::smatch match;
      if (std::regex_search(pending_output, match,
                            std::regex(std::string(worker1_task) + "\\s+(\\d+)\\s+\\S*take\\S*")))
        step_id = match[1];
      else
        std::this_thread::sleep_for(100ms);
    }
    MESSAGE(pending_output);
    REQUIRE(!step_id.empty());
    CHECK(contains(pending_output, ps_task));  // the "from" column: the ps sends it
    auto aborted = run_console(c.address(2), "abort " + step_id);
    MESSAGE(aborted.output);
    CHECK(aborted.exit_code == 0);
    CHECK(has_row(aborted.output, {worker0_task, step_id, "aborted"}));
    REQUIRE(stuck.wait_for(30s) == std::future_status::ready);
    auto result = stuck.get();
    CHECK_FALSE(result.ok());
    CHECK(contains(result.get_status().to_string(), "aborted from caflow-console"));
    auto after = run_console(c.address(0), "pending; abort " + step_id);
    CHECK(after.exit_code == 1);
    CHECK(contains(after.output, "no master runs step " + step_id));
  }

  SUBCASE("a killed task shows as lost; the others still answer") {
    c.worker1->signal(SIGKILL);
    c.worker1->wait_exit(10s);
    const auto start = std::chrono::steady_clock::now();
    auto r = run_console(c.address(0), "cluster; vars");
    MESSAGE(r.output);
    CHECK(r.exit_code == 0);
    CHECK(has_row(r.output, {worker1_task, c.address(2), "lost", "-"}));
    CHECK(has_row(r.output, {ps_task, c.address(0), "alive"}));
    CHECK(has_row(r.output, {worker0_task, c.address(1), "alive"}));
    CHECK(contains(r.output, "note: " + std::string(worker1_task) + " did not answer"));
    CHECK(has_row(r.output, {ps_task, "w", "float32"}));
    CHECK(std::chrono::steady_clock::now() - start < 20s);
  }

  SUBCASE("interactively in tmux: tab completion and a command's table") {
    const std::string tmux = tmux_path();
    if (tmux.empty()) {
      MESSAGE("skipped: tmux is not installed (apt-get install tmux)");
      return;
    }
    tmux_session t{tmux};
    const std::string cmd = std::string(CAFLOW_CONSOLE_BINARY) + " --connect " + c.address(2) +
                            " --history ''";
    REQUIRE(t.run({"new-session", "-d", "-s", "console", "-x", "200", "-y", "50", cmd}) == 0);
    std::string screen;
    REQUIRE_MESSAGE(t.wait_for([](const std::string& s) { return contains(s, "caflow>"); }, 20s,
                               &screen),
                    screen);
    // "clus" + Tab completes to "cluster"; Enter runs it.
    REQUIRE(t.run({"send-keys", "-t", "console", "clus", "Tab"}) == 0);
    CHECK_MESSAGE(t.wait_for([](const std::string& s) { return contains(s, "caflow> cluster"); },
                             10s, &screen),
                  screen);
    REQUIRE(t.run({"send-keys", "-t", "console", "Enter"}) == 0);
    CHECK_MESSAGE(t.wait_for(
                      [](const std::string& s) {
                        return has_row(s, {ps_task, "127\\.0\\.0\\.1:\\d+", "alive"}) &&
                               has_row(s, {worker1_task, "127\\.0\\.0\\.1:\\d+", "alive"});
                      },
                      20s, &screen),
                  screen);
    // "var " + Tab completes the only variable's name.
    REQUIRE(t.run({"send-keys", "-t", "console", "var ", "Tab"}) == 0);
    CHECK_MESSAGE(
        t.wait_for([](const std::string& s) { return contains(s, "caflow> var w"); }, 10s, &screen),
        screen);
    REQUIRE(t.run({"send-keys", "-t", "console", "Enter"}) == 0);
    CHECK_MESSAGE(t.wait_for([](const std::string& s) { return contains(s, "{8, 16, 24}"); }, 20s,
                             &screen),
                  screen);
    REQUIRE(t.run({"send-keys", "-t", "console", "quit", "Enter"}) == 0);
  }
}
