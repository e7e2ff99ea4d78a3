// The admin interface's pieces without a cluster: step latency statistics, the answers built
// from a worker's device and a master's snapshot, command validation, trace recording, and the
// logger's level parsing.
#include <doctest/doctest.h>

#include <cstdlib>
#include <thread>

#include "actors/admin/admin_queries.hpp"
#include "graph/core/log.hpp"
#include "actors/master/step_stats.hpp"
#include "actors/executor/trace_recorder.hpp"
#include "devices/cpu_device.hpp"
#include "kernels/resources/variable.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using namespace std::chrono_literals;
using caflow::testing::check_error;

namespace {

// Step i (1-based) took i ms and ended i * 10 ms after t0.
step_stats steps_of(size_t capacity, int n, int failed_every = 0) {
  step_stats s(capacity);
  const auto t0 = step_stats::clock::time_point{} + 1h;
  for (int i = 1; i <= n; ++i) {
    const auto end = t0 + std::chrono::milliseconds(10 * i);
    s.record(end - std::chrono::milliseconds(i), failed_every == 0 || i % failed_every != 0, end);
  }
  return s;
}

admin_query words(std::vector<std::string> w) { return admin_query{std::move(w)}; }

}  // namespace

TEST_CASE("step_stats: nearest-rank percentiles and the rate over the ring") {
  SUBCASE("every step in the window") {
    const latency_summary s = steps_of(1024, 100, 10).summary();
    CHECK(s.count == 100);
    CHECK(s.errors == 10);
    CHECK(s.window == 100);
    CHECK(s.p50_us == 50000);  // the 50th of 1..100 ms
    CHECK(s.p99_us == 99000);  // the 99th
    // 99 intervals of 10 ms between the first and the last end.
    CHECK(s.steps_per_s == doctest::Approx(100.0));
  }
  SUBCASE("a full ring keeps the newest steps only") {
    const latency_summary s = steps_of(64, 100).summary();
    CHECK(s.count == 100);
    CHECK(s.window == 64);     // steps 37..100
    CHECK(s.p50_us == 68000);  // 32nd of 64: 37 + 31
    CHECK(s.p99_us == 100000); // ceil(0.99 * 64) = 64th: the slowest
    CHECK(s.steps_per_s == doctest::Approx(100.0));
  }
  SUBCASE("one step: percentiles but no rate; none: nothing") {
    const latency_summary one = steps_of(8, 1).summary();
    CHECK(one.p50_us == 1000);
    CHECK(one.p99_us == 1000);
    CHECK(one.steps_per_s == 0);
    const latency_summary none = step_stats{}.summary();
    CHECK(none.window == 0);
    CHECK(none.count == 0);
  }
}

TEST_CASE("worker answers: devices, vars with L2 norms, var values truncated") {
  cpu_device dev("/job:ps/replica:0/task:0/device:CPU:0", {.intra_op_threads = 1,
                                                           .inter_op_threads = 1});
  auto w = dev.resources().lookup_or_create<variable>("", "w", [] {
    return std::make_shared<variable>("w", dtype::float32, partial_shape{2});
  });
  w->assign(tensor::from_vector<float>({3, 4}));  // |w| = 5
  auto big = dev.resources().lookup_or_create<variable>("", "big", [] {
    return std::make_shared<variable>("big", dtype::int32, partial_shape{20});
  });
  std::vector<int32_t> values(20);
  for (int i = 0; i < 20; ++i) values[i] = i;
  big->assign(tensor::from_vector<int32_t>(values));
  dev.resources().lookup_or_create<variable>("", "fresh", [] {
    return std::make_shared<variable>("fresh", dtype::float32, partial_shape{-1, 3});
  });
  trace_recorder trace("/job:ps/replica:0/task:0");
  worker_view view{"/job:ps/replica:0/task:0", {&dev}, {}, {}, &trace};

  auto vars = answer_worker_query(view, words({"vars"}));
  REQUIRE(vars.ok());
  CHECK(vars->table.columns ==
        std::vector<std::string>{"task", "variable", "dtype", "shape", "l2 norm", "partition"});
  std::map<std::string, std::vector<std::string>> by_name;
  for (const auto& row : vars->table.rows) by_name[row.at(1)] = row;
  REQUIRE(by_name.size() == 3);
  CHECK(by_name["w"] == std::vector<std::string>{"/job:ps/replica:0/task:0", "w", "float32", "[2]",
                                                 "5.000000", ""});
  // sqrt(0^2 + 1^2 + ... + 19^2) = sqrt(2470)
  CHECK(by_name["big"][4] == "49.699095");
  CHECK(by_name["fresh"][3] == "[?,3]");
  CHECK(by_name["fresh"][4] == "uninitialized");

  auto shown = answer_worker_query(view, words({"var", "big"}));
  REQUIRE(shown.ok());
  REQUIRE(shown->table.rows.size() == 1);
  CHECK(shown->table.rows[0][4] == "{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ... (8 more)}");
  auto missing = answer_worker_query(view, words({"var", "nope"}));
  REQUIRE(missing.ok());
  CHECK(missing->table.rows.empty());  // the admin turns "nowhere" into an error

  auto devices = answer_worker_query(view, words({"devices"}));
  REQUIRE(devices.ok());
  REQUIRE(devices->table.rows.size() == 1);
  CHECK(devices->table.rows[0][1] == "/job:ps/replica:0/task:0/device:CPU:0");
  CHECK(devices->table.rows[0][5] == "none");

  auto pending = answer_worker_query(view, words({"pending"}));
  REQUIRE(pending.ok());
  CHECK(pending->table.rows.empty());
  check_error(answer_worker_query(view, words({"steps"})), "the worker does not answer 'steps'");
}

namespace {

// Shard `part` of "emb" [10,4] (rows `offset`.. of it), holding iota values from offset * 4.
std::shared_ptr<variable> add_shard(cpu_device& dev, int part, int64_t offset, int64_t rows,
                                    bool initialize = true) {
  const std::string name = "emb/part_" + std::to_string(part);
  auto v = dev.resources().lookup_or_create<variable>("", name, [&] {
    return std::make_shared<variable>(name, dtype::float32, partial_shape{rows, 4},
                                      variable_partition{"emb", row_slice({10, 4}, offset, rows)});
  });
  if (initialize) v->assign(caflow::testing::iota<float>({rows, 4}, static_cast<float>(offset * 4)));
  return v;
}

}  // namespace

TEST_CASE("a partitioned variable is one entry with its shards: vars, var NAME, var SHARD") {
  // Shards 0 and 2 on the ps, shard 1 on a worker, as replica_device_setter could place them.
  cpu_device ps("/job:ps/replica:0/task:0/device:CPU:0", {.intra_op_threads = 1,
                                                          .inter_op_threads = 1});
  cpu_device wk("/job:worker/replica:0/task:1/device:CPU:0", {.intra_op_threads = 1,
                                                              .inter_op_threads = 1});
  add_shard(ps, 0, 0, 4);
  add_shard(wk, 1, 4, 3);
  add_shard(ps, 2, 7, 3);
  trace_recorder trace("t");
  const worker_view ps_view{"/job:ps/replica:0/task:0", {&ps}, {}, {}, &trace};
  const worker_view wk_view{"/job:worker/replica:0/task:1", {&wk}, {}, {}, &trace};

  // What the admin does once both tasks answered.
  const auto merged = [&](const std::vector<std::string>& q) {
    auto a = answer_worker_query(ps_view, words(q));
    auto b = answer_worker_query(wk_view, words(q));
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    admin_table t = a->table;
    for (auto& row : b->table.rows) t.rows.push_back(row);
    std::vector<variable_shard> shards = a->shards;
    shards.insert(shards.end(), b->shards.begin(), b->shards.end());
    render_partitioned_variables(words(q), shards, t);
    return t;
  };

  const admin_table vars = merged({"vars"});
  REQUIRE(vars.rows.size() == 4);
  // |0..39| = sqrt(20540) = 143.317829; 40 floats = 160 bytes.
  CHECK(vars.rows[0] == std::vector<std::string>{"2 tasks", "emb", "float32", "[10,4]",
                                                 "143.317829", "3 shards, 160 B"});
  CHECK(vars.rows[1] == std::vector<std::string>{"/job:ps/replica:0/task:0", "emb/part_0",
                                                 "float32", "[4,4]", "35.213634",
                                                 "rows [0,4), 64 B, CPU:0"});
  CHECK(vars.rows[2] == std::vector<std::string>{"/job:worker/replica:0/task:1", "emb/part_1",
                                                 "float32", "[3,4]", "75.432089",
                                                 "rows [4,7), 48 B, CPU:0"});
  CHECK(vars.rows[3][5] == "rows [7,10), 48 B, CPU:0");
  CHECK(vars.notes.empty());

  // The full name shows the whole value, rows concatenated in order and truncated.
  const admin_table whole = merged({"var", "emb"});
  REQUIRE(whole.rows.size() == 4);
  CHECK(whole.columns ==
        std::vector<std::string>{"task", "variable", "dtype", "shape", "values", "partition"});
  CHECK(whole.rows[0] == std::vector<std::string>{
                             "2 tasks", "emb", "float32", "[10,4]",
                             "{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ... (28 more)}",
                             "3 shards, 160 B"});
  // A shard by its own name still works.
  const admin_table one = merged({"var", "emb/part_1"});
  REQUIRE(one.rows.size() == 1);
  CHECK(one.rows[0] == std::vector<std::string>{
                           "/job:worker/replica:0/task:1", "emb/part_1", "float32", "[3,4]",
                           "{16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27}",
                           "rows [4,7) of emb [10,4]"});

  // Without the worker's answer, rows [4,7) are missing, and a note says so.
  auto alone = answer_worker_query(ps_view, words({"vars"}));
  REQUIRE(alone.ok());
  admin_table partial = alone->table;
  render_partitioned_variables(words({"vars"}), alone->shards, partial);
  CHECK(partial.rows[0] == std::vector<std::string>{"/job:ps/replica:0/task:0", "emb", "float32",
                                                    "[10,4]", "121.860576", "2 shards, 112 B"});
  REQUIRE(partial.notes.size() == 1);
  CHECK(partial.notes[0] == "'emb': the shards found hold 7 of its 10 rows (a task did not answer?)");

  // A shard never assigned makes the whole uninitialized in part.
  cpu_device other("/job:ps/replica:0/task:1/device:CPU:0", {.intra_op_threads = 1,
                                                             .inter_op_threads = 1});
  add_shard(other, 1, 4, 3, false);
  const worker_view other_view{"/job:ps/replica:0/task:1", {&other}, {}, {}, &trace};
  auto fresh = answer_worker_query(other_view, words({"vars"}));
  REQUIRE(fresh.ok());
  std::vector<variable_shard> shards = alone->shards;
  shards.insert(shards.end(), fresh->shards.begin(), fresh->shards.end());
  admin_table mixed;
  render_partitioned_variables(words({"vars"}), shards, mixed);
  CHECK(mixed.rows[0][4] == "partly initialized");
  CHECK(mixed.rows[2][4] == "uninitialized");
  CHECK(mixed.notes.empty());
}

TEST_CASE("master answers: sessions, graphs and steps from a snapshot") {
  master_snapshot m;
  session_summary s{"session_3", 12, 2, {77, 78}, {}, {}};
  s.latency = {.count = 40, .errors = 1, .window = 40, .p50_us = 850, .p99_us = 12500,
               .steps_per_s = 250.0};
  s.partitions = {{0, "/job:ps/replica:0/task:0", "/job:ps/replica:0/task:0/device:CPU:0", 5},
                  {1, "/job:worker/replica:0/task:1", "/job:worker/replica:0/task:1/device:CPU:0",
                   9}};
  m.sessions.push_back(s);
  const std::string task = "/job:worker/replica:0/task:0";

  auto sessions = answer_master_query(task, m, words({"sessions"}));
  REQUIRE(sessions.ok());
  CHECK(sessions->table.rows.at(0) ==
        std::vector<std::string>{task, "session_3", "12", "2", "40", "77 78"});
  auto graphs = answer_master_query(task, m, words({"graphs"}));
  REQUIRE(graphs.ok());
  REQUIRE(graphs->table.rows.size() == 2);
  CHECK(graphs->table.rows[1] ==
        std::vector<std::string>{task, "session_3", "1", "/job:worker/replica:0/task:1",
                                 "/job:worker/replica:0/task:1/device:CPU:0", "9"});
  auto steps = answer_master_query(task, m, words({"steps"}));
  REQUIRE(steps.ok());
  CHECK(steps->table.rows.at(0) == std::vector<std::string>{task, "session_3", "40", "1",
                                                            "850 us", "12.50 ms", "250.0/s",
                                                            "77 78"});
}

TEST_CASE("commands are checked before anything is asked") {
  CHECK(validate_query(words({"cluster"})).ok());
  CHECK(validate_query(words({"trace", "on"})).ok());
  CHECK(validate_query(words({"trace", "off", "/job:ps/replica:0/task:0"})).ok());
  CHECK(validate_query(words({"abort", "-12"})).ok());
  check_error(validate_query(words({"clusters"})),
              "unknown command 'clusters' (try help)");
  check_error(validate_query(words({"var"})), "usage: var NAME");
  check_error(validate_query(words({"abort", "12x"})),
              "abort takes a step id (an integer), not '12x'");
  check_error(validate_query(words({"trace", "maybe"})),
              "usage: trace on|off [TASK] | trace save FILE");
  check_error(validate_query(words({"vars", "extra"})), "usage: vars");
  check_error(validate_query(words({})), "empty command");
}

TEST_CASE("sizes and durations read like a person would write them") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(3 * 1024 * 1024) == "3.0 MiB");
  CHECK(format_micros(830) == "830 us");
  CHECK(format_micros(12400) == "12.40 ms");
  CHECK(format_micros(2.5e6) == "2.5 s");
  CHECK(format_seconds(185) == "3m05s");
  CHECK(format_seconds(7260) == "2h01m");
}

TEST_CASE("trace_recorder: on starts afresh, off keeps, events on the wall clock") {
  trace_recorder rec("/job:worker/replica:0/task:1", 2);
  auto info = std::make_shared<node_trace_info>(
      node_trace_info{"send", "_Send", "/job:worker/replica:0/task:1/device:CPU:0",
                      "/job:ps/replica:0/task:0/device:CPU:0", "k"});
  const auto start = trace_recorder::clock::now();
  rec.set_enabled(true);
  rec.record(info, 7, start, start + 250us, 12);
  rec.record(info, 8, start, start + 1ms, 12);
  rec.record(info, 9, start, start + 1ms, 12);  // over capacity: dropped
  CHECK(rec.dropped() == 1);
  auto events = rec.collect();
  REQUIRE(events.size() == 2);
  CHECK(events[0].task == "/job:worker/replica:0/task:1");
  CHECK(events[0].node == "send");
  CHECK(events[0].peer == "/job:ps/replica:0/task:0/device:CPU:0");
  CHECK(events[0].step_id == 7);
  CHECK(events[0].dur_us == 250);
  CHECK(events[0].bytes == 12);
  const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  CHECK(std::llabs(events[0].start_us - now_us) < 5'000'000);  // a wall-clock time, not steady
  rec.set_enabled(false);
  CHECK(rec.size() == 2);
  rec.set_enabled(true);
  CHECK(rec.size() == 0);
  CHECK(rec.dropped() == 0);
}

TEST_CASE("log levels: names, the environment variable, the flag first") {
  CHECK(*parse_log_level("debug") == log_level::debug);
  CHECK(*parse_log_level("warning") == log_level::warn);
  check_error(parse_log_level("loud"), "unknown log level 'loud' (error, warn, info or debug)");
  if (std::getenv("CAFLOW_LOG_LEVEL") == nullptr)
    CHECK(current_log_level() == log_level::warn);  // quiet by default
  ::setenv("CAFLOW_LOG_LEVEL", "info", 1);
  REQUIRE(init_logging("").ok());
  CHECK(current_log_level() == log_level::info);
  REQUIRE(init_logging("error").ok());
  CHECK(current_log_level() == log_level::error);
  CHECK_FALSE(log_enabled(log_level::warn));
  ::setenv("CAFLOW_LOG_LEVEL", "chatty", 1);
  check_error(init_logging(""), "CAFLOW_LOG_LEVEL");
  ::unsetenv("CAFLOW_LOG_LEVEL");
}
