#include "net/device_filters.hpp"

#include <doctest/doctest.h>

#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;

namespace {

device_filters filters_ok(std::vector<std::string> specs) {
  auto f = device_filters::parse(specs);
  REQUIRE_MESSAGE(f.ok(), f.get_status().to_string());
  return *f;
}

}  // namespace

TEST_CASE("no filters admit every task and device") {
  device_filters none;
  CHECK(none.empty());
  CHECK(none.admits_task("/job:worker/replica:0/task:7"));
  CHECK(none.admits_device("/job:ps/replica:0/task:0/device:CPU:0"));
  CHECK(none.to_string() == "(none)");
}

TEST_CASE("a ps/worker filter admits the ps tasks and one worker") {
  const auto f = filters_ok({"/job:ps", "/job:worker/task:1"});
  CHECK_FALSE(f.empty());
  CHECK(f.admits_task("/job:ps/replica:0/task:0"));
  CHECK(f.admits_task("/job:ps/replica:0/task:3"));
  CHECK(f.admits_task("/job:worker/replica:0/task:1"));
  CHECK_FALSE(f.admits_task("/job:worker/replica:0/task:0"));
  CHECK_FALSE(f.admits_task("/job:worker/replica:0/task:10"));
  CHECK_FALSE(f.admits_task("/job:chief/replica:0/task:0"));
  CHECK(f.admits_device("/job:worker/replica:0/task:1/device:GPU:0"));
  CHECK_FALSE(f.admits_device("/job:worker/replica:0/task:2/device:CPU:0"));
  // A spec that leaves the task open could land on the admitted one: placement decides.
  CHECK(f.admits_device("/job:worker"));
  CHECK(f.admits_device("/device:CPU:0"));
  CHECK(f.to_string() == "/job:ps, /job:worker/task:1");
}

TEST_CASE("a device filter admits its task but only its devices") {
  const auto f = filters_ok({"/job:worker/task:0/device:GPU:1"});
  CHECK(f.admits_task("/job:worker/replica:0/task:0"));
  CHECK(f.admits_device("/job:worker/replica:0/task:0/device:GPU:1"));
  CHECK_FALSE(f.admits_device("/job:worker/replica:0/task:0/device:GPU:0"));
  CHECK_FALSE(f.admits_device("/job:worker/replica:0/task:0/device:CPU:0"));
}

TEST_CASE("narrowed filters admit what both sets admit") {
  const auto server = filters_ok({"/job:ps", "/job:worker/task:1", "/job:worker/task:2"});
  const auto session = filters_ok({"/job:ps/task:0", "/job:worker/task:2"});
  const auto both = server.narrowed_by(session);
  CHECK(both.admits_task("/job:ps/replica:0/task:0"));
  CHECK_FALSE(both.admits_task("/job:ps/replica:0/task:1"));
  CHECK_FALSE(both.admits_task("/job:worker/replica:0/task:1"));
  CHECK(both.admits_task("/job:worker/replica:0/task:2"));
  CHECK(both.to_string() ==
        "/job:ps, /job:worker/task:1, /job:worker/task:2 and /job:ps/task:0, /job:worker/task:2");
  CHECK(server.narrowed_by(device_filters{}).to_string() == server.to_string());
}

TEST_CASE("bad filters are refused by name") {
  check_error(device_filters::parse({"/job:ps", "/job:worker/task:x"}), "/job:worker/task:x");
  check_error(device_filters::parse({"/jbo:ps"}), "/jbo:ps");
  check_error(device_filters::parse({""}), "names nothing");
  check_error(device_filters::split_list("/job:ps,,/job:worker"), "empty entry");
  auto split = device_filters::split_list(" /job:ps , /job:worker/task:1");
  REQUIRE(split.ok());
  CHECK(*split == std::vector<std::string>{"/job:ps", "/job:worker/task:1"});
  auto none = device_filters::split_list("");
  REQUIRE(none.ok());
  CHECK(none->empty());
}
