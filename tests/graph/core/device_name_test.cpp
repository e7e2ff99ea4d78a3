#include "graph/core/device_name.hpp"

#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;

namespace {

device_spec parse_ok(std::string_view text) {
  auto r = parse_device_spec(text);
  INFO("spec: ", text);
  REQUIRE_MESSAGE(r.ok(), r.get_status().to_string());
  return *r;
}

}  // namespace

TEST_CASE("parse_device_spec: a full name sets every field") {
  device_spec d = parse_ok("/job:ps/replica:0/task:1/device:CPU:0");
  CHECK(d.job == "ps");
  CHECK(d.replica == 0);
  CHECK(d.task == 1);
  CHECK(d.type == "CPU");
  CHECK(d.id == 0);
  CHECK(is_fully_specified(d));
  CHECK(to_string(d) == "/job:ps/replica:0/task:1/device:CPU:0");
}

TEST_CASE("parse_device_spec: partial specs leave the rest unconstrained") {
  device_spec ps = parse_ok("/job:ps");
  CHECK(ps == device_spec{.job = "ps"});
  CHECK_FALSE(is_fully_specified(ps));

  CHECK(parse_ok("/job:worker/task:2") == device_spec{.job = "worker", .task = 2});
  CHECK(parse_ok("/job:ps/device:CPU:0") == device_spec{.job = "ps", .type = "CPU", .id = 0});
  CHECK(parse_ok("/replica:3") == device_spec{.replica = 3});

  device_spec any_gpu = parse_ok("/device:GPU:*");
  CHECK(any_gpu.type == "GPU");
  CHECK_FALSE(any_gpu.id.has_value());
  CHECK(parse_ok("/device:GPU") == any_gpu);
  CHECK(to_string(any_gpu) == "/device:GPU:*");

  CHECK(parse_ok("/device:*:1") == device_spec{.id = 1});
  CHECK(to_string(device_spec{.id = 1}) == "/device:*:1");
  CHECK(parse_ok("/job:*/task:*") == device_spec{});
}

TEST_CASE("parse_device_spec: the empty string has no constraints") {
  device_spec d = parse_ok("");
  CHECK(d == device_spec{});
  CHECK(to_string(d).empty());
  CHECK_FALSE(is_fully_specified(d));
}

TEST_CASE("parse_device_spec: legacy /cpu: and /gpu: and lower-case types") {
  CHECK(parse_ok("/cpu:0") == device_spec{.type = "CPU", .id = 0});
  CHECK(parse_ok("/gpu:1") == device_spec{.type = "GPU", .id = 1});
  CHECK(parse_ok("/CPU:2") == device_spec{.type = "CPU", .id = 2});
  CHECK(parse_ok("/gpu:*") == device_spec{.type = "GPU"});
  CHECK(parse_ok("/job:worker/replica:0/task:3/gpu:1") ==
        device_spec{.job = "worker", .replica = 0, .task = 3, .type = "GPU", .id = 1});
  CHECK(parse_ok("/device:gpu:0") == device_spec{.type = "GPU", .id = 0});
  CHECK(parse_ok("/device:xla_cpu:0").type == "XLA_CPU");
  CHECK(to_string(parse_ok("/cpu:0")) == "/device:CPU:0");
}

TEST_CASE("parse_device_spec: fields in any order, printed canonically") {
  device_spec d = parse_ok("/device:CPU:0/task:4/job:local_host2");
  CHECK(d == device_spec{.job = "local_host2", .task = 4, .type = "CPU", .id = 0});
  CHECK(to_string(d) == "/job:local_host2/task:4/device:CPU:0");
}

TEST_CASE("to_string and parse_device_spec round trip") {
  const char* specs[] = {"",
                         "/job:ps",
                         "/replica:1",
                         "/task:7",
                         "/device:GPU:*",
                         "/device:*:2",
                         "/job:worker/replica:0/task:12/device:CPU:3",
                         "/job:a_1/device:TPU:0"};
  for (const char* text : specs) {
    INFO("spec: ", text);
    CHECK(to_string(parse_ok(text)) == text);
  }
}

TEST_CASE("parse_device_spec: rejections quote the spec and name the bad part") {
  check_error(parse_device_spec("/job:ps/task:-1"),
              "invalid device spec '/job:ps/task:-1': task must be a non-negative integer or '*', "
              "got '-1'");
  check_error(parse_device_spec("/replica:x"), "replica must be a non-negative integer");
  check_error(parse_device_spec("/task:99999999999"),
              "'/task:99999999999': task 99999999999 is "
              "too large");
  check_error(parse_device_spec("/device:GPU:1x"),
              "device id must be a non-negative integer or '*', got '1x'");
  check_error(parse_device_spec("/cpu:-2"), "device id must be a non-negative integer");
  check_error(parse_device_spec("/device:GPU:0:1"), "got '0:1'");

  check_error(parse_device_spec("/foo:1"), "invalid device spec '/foo:1': unknown field '/foo:1'");
  check_error(parse_device_spec("/job:ps/jobs:ps"), "unknown field '/jobs:ps'");

  check_error(parse_device_spec("/job:ps/job:worker"),
              "'/job:ps/job:worker': duplicated field: '/job:ps' and '/job:worker'");
  check_error(parse_device_spec("/cpu:0/device:GPU:0"),
              "duplicated field: '/cpu:0' and '/device:GPU:0'");
  check_error(parse_device_spec("/task:1/task:1"), "duplicated field");

  check_error(parse_device_spec("/job:"), "'/job:': missing value in '/job:'");
  check_error(parse_device_spec("/task"), "missing value in '/task'");
  check_error(parse_device_spec("/device:"), "missing value in '/device:'");
  check_error(parse_device_spec("/device::0"), "empty device type in '/device::0'");
  check_error(parse_device_spec("/device:GPU:"), "missing device id after '/device:GPU:'");

  check_error(parse_device_spec("job:ps"), "'job:ps': must start with '/'");
  check_error(parse_device_spec("/job:ps/"), "trailing '/'");
  check_error(parse_device_spec("/job:ps//task:0"), "empty field '//'");
  check_error(parse_device_spec("/"), "trailing '/'");
  check_error(parse_device_spec("/job:Ps"), "invalid job name 'Ps' (expected [a-z][a-z0-9_]*)");
  check_error(parse_device_spec("/job:ps x"), "invalid job name 'ps x'");
  check_error(parse_device_spec("/job:1ps"), "invalid job name '1ps'");
  check_error(parse_device_spec("/device:G-PU:0"), "invalid device type 'G-PU'");
}

TEST_CASE("matches: every field the spec sets must be equal in the name") {
  device_spec name = parse_ok("/job:worker/replica:0/task:1/device:GPU:0");
  auto m = [&](std::string_view spec) { return matches(parse_ok(spec), name); };
  CHECK(m(""));
  CHECK(m("/job:worker"));
  CHECK(m("/job:worker/task:1"));
  CHECK(m("/device:GPU:*"));
  CHECK(m("/gpu:0"));
  CHECK(m("/job:worker/replica:0/task:1/device:GPU:0"));
  CHECK_FALSE(m("/job:ps"));
  CHECK_FALSE(m("/job:worker/task:0"));
  CHECK_FALSE(m("/replica:1"));
  CHECK_FALSE(m("/device:CPU:*"));
  CHECK_FALSE(m("/device:GPU:1"));
  CHECK_FALSE(m("/device:*:1"));
  // A field the name leaves out cannot satisfy a spec that sets it.
  CHECK_FALSE(matches(parse_ok("/task:0"), parse_ok("/job:worker")));
  CHECK(matches(parse_ok("/job:worker"), parse_ok("/job:worker")));
}

TEST_CASE("merge: the union of constraints, or an error naming both specs") {
  auto merged = merge(parse_ok("/job:ps"), parse_ok("/device:CPU:0"));
  REQUIRE(merged.ok());
  CHECK(to_string(*merged) == "/job:ps/device:CPU:0");

  merged = merge(parse_ok("/job:ps/task:1/device:GPU:*"), parse_ok("/job:ps/replica:0/gpu:1"));
  REQUIRE(merged.ok());
  CHECK(to_string(*merged) == "/job:ps/replica:0/task:1/device:GPU:1");

  merged = merge(parse_ok(""), parse_ok("/job:worker/task:0"));
  REQUIRE(merged.ok());
  CHECK(to_string(*merged) == "/job:worker/task:0");

  check_error(merge(parse_ok("/job:ps/task:1"), parse_ok("/job:worker")),
              "cannot merge device specs '/job:ps/task:1' and '/job:worker': conflicting job: "
              "/job:ps vs /job:worker");
  check_error(merge(parse_ok("/task:1"), parse_ok("/task:2")),
              "conflicting task: /task:1 vs /task:2");
  check_error(merge(parse_ok("/replica:0"), parse_ok("/replica:1")),
              "conflicting replica: /replica:0 vs /replica:1");
  check_error(merge(parse_ok("/cpu:0"), parse_ok("/device:GPU:*")),
              "'/device:CPU:0' and '/device:GPU:*': conflicting device type: CPU vs GPU");
  check_error(merge(parse_ok("/gpu:0"), parse_ok("/gpu:1")), "conflicting device id: 0 vs 1");
}

TEST_CASE("full_device_name builds replica-0 names that parse back") {
  std::string name = full_device_name("worker", 3, "GPU", 1);
  CHECK(name == "/job:worker/replica:0/task:3/device:GPU:1");
  device_spec d = parse_ok(name);
  CHECK(is_fully_specified(d));
  CHECK(d == device_spec{.job = "worker", .replica = 0, .task = 3, .type = "GPU", .id = 1});
  CHECK(full_device_name("localhost", 0, "CPU", 0) ==
        "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST_CASE("task_of_device names the task of a device, or nothing") {
  CHECK(task_of_device("/job:worker/replica:0/task:1/device:CPU:0") ==
        "/job:worker/replica:0/task:1");
  CHECK(task_of_device("/job:ps/task:3/device:GPU:1") == "/job:ps/replica:0/task:3");
  CHECK(task_of_device("/job:ps/task:3") == "/job:ps/replica:0/task:3");
  CHECK(task_of_device("/job:ps/replica:2/task:3/device:CPU:0") == "/job:ps/replica:2/task:3");
  CHECK(task_of_device("/device:CPU:0").empty());
  CHECK(task_of_device("not a device").empty());
}
