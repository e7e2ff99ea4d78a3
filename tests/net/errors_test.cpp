#include <doctest/doctest.h>

#include <caf/all.hpp>

#include "net/errors.hpp"
#include "net/protocol.hpp"
#include "test_util/spawn_function.hpp"

using namespace caflow;

namespace {

const std::string dev1 = "/job:worker/replica:0/task:1/device:CPU:0";
const std::string task1 = "/job:worker/replica:0/task:1";

// A kernel's error as the executor leaves it: the node and device in the message and as fields.
status kernel_error() {
  return status(error_code::invalid_argument,
                "node 'mm' (MatMul) on " + dev1 + ": matrix size-incompatible",
                std::make_shared<const error_source>(error_source{"mm", dev1, task1}));
}

void check_kernel_error(const status& back) {
  const status sent = kernel_error();
  CHECK(back.code() == sent.code());
  CHECK(back.message() == sent.message());
  REQUIRE(back.source());
  CHECK(back.source()->node == "mm");
  CHECK(back.source()->device == dev1);
  CHECK(back.source()->task == task1);
}

struct wire_config : caf::actor_system_config {
  wire_config() { add_wire_types(*this); }
};

// `value` written by CAF's binary serializer and read back, as BASP does between processes.
template <class T>
T over_the_wire(caf::actor_system& sys, T value) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  REQUIRE_FALSE(sink(value));
  T back;
  caf::binary_deserializer source{sys, buf};
  REQUIRE_FALSE(source(back));
  return back;
}

}  // namespace

TEST_CASE("a status survives the round trip through caf::error") {
  const status st = errors::invalid_argument("node 'x' (MatMul) on /job:w/task:1: bad shape");
  caf::error err = to_caf_error(st);
  REQUIRE(err);
  CHECK(err.category() == caflow_error_category);
  const status back = to_status(err);
  CHECK(back.code() == error_code::invalid_argument);
  CHECK(back.message() == st.message());
  CHECK_FALSE(to_caf_error(status{}));
  CHECK(to_status(caf::error{}).ok());
}

TEST_CASE("a status's source survives caf::error, across the wire too, and keeps its context") {
  wire_config cfg;
  caf::actor_system sys{cfg};
  check_kernel_error(to_status(to_caf_error(kernel_error())));
  check_kernel_error(to_status(over_the_wire(sys, to_caf_error(kernel_error()))));
  // A prefix added on the way out keeps the source.
  const status outer = kernel_error().with_context("task " + task1);
  CHECK(outer.message() == "task " + task1 + ": " + kernel_error().message());
  REQUIRE(outer.source());
  CHECK(outer.source()->node == "mm");
  // The innermost source wins.
  const auto other = std::make_shared<const error_source>(error_source{"recv", "d", "t"});
  CHECK(kernel_error().with_source(other).source()->node == "mm");
  CHECK(errors::aborted("x").with_source(other).source()->node == "recv");
  CHECK_FALSE(status{}.with_source(other).source());  // OK stays OK, without a source
  // Without a source none appears.
  CHECK_FALSE(to_status(to_caf_error(errors::internal("plain"))).source());
}

TEST_CASE("a status's source survives step_error, across the wire too") {
  wire_config cfg;
  caf::actor_system sys{cfg};
  const step_error e = to_step_error(kernel_error());
  CHECK(e.code == static_cast<uint8_t>(error_code::invalid_argument));
  CHECK(e.node == "mm");
  CHECK(e.device == dev1);
  CHECK(e.task == task1);
  check_kernel_error(to_status(e));
  check_kernel_error(to_status(over_the_wire(sys, e)));
  const status plain = to_status(over_the_wire(sys, to_step_error(errors::unavailable("lost"))));
  CHECK(plain.code() == error_code::unavailable);
  CHECK(plain.message() == "lost");
  CHECK_FALSE(plain.source());
}

TEST_CASE("a code from the wire that is no error code becomes a clear internal error") {
  wire_config cfg;
  caf::actor_system sys{cfg};
  const auto beyond = static_cast<uint8_t>(static_cast<uint8_t>(last_error_code) + 1);
  for (uint8_t code : {uint8_t{0}, beyond, uint8_t{255}}) {
    CAPTURE(unsigned{code});
    const std::string said =
        "an error came with the invalid code " + std::to_string(code) + " (its message: 'forged')";
    const status from_value = to_status(step_error{code, "forged", "n", dev1, task1});
    CHECK(from_value.code() == error_code::internal);
    CHECK(from_value.message() == said);
    REQUIRE(from_value.source());
    CHECK(from_value.source()->device == dev1);
    if (code == 0) continue;  // caf::error has no code 0: that is no error at all
    const caf::error err{code, caflow_error_category, caf::make_message(std::string("forged"))};
    const status from_error = to_status(err);
    CHECK(from_error.code() == error_code::internal);
    CHECK(from_error.message() == said);
    CHECK(sys.render(err) == "INTERNAL: " + said);
  }
  // A context that is not the strings we send: no message, no source, the code kept.
  const status odd = to_status(caf::error{static_cast<uint8_t>(error_code::aborted),
                                          caflow_error_category, caf::make_message(int32_t{7})});
  CHECK(odd.code() == error_code::aborted);
  CHECK(odd.message().empty());
  CHECK_FALSE(odd.source());
}

TEST_CASE("CAF's own errors map to caflow codes with readable text") {
  status timeout = to_status(caf::make_error(caf::sec::request_timeout));
  CHECK(timeout.code() == error_code::deadline_exceeded);
  CHECK(timeout.message().find("request_timeout") != std::string::npos);
  status lost = to_status(caf::make_error(caf::exit_reason::remote_link_unreachable));
  CHECK(lost.code() == error_code::unavailable);
}

TEST_CASE("a caflow error crosses an actor boundary and renders readably") {
  caf::actor_system_config cfg;
  add_wire_types(cfg);
  caf::actor_system sys{cfg};
  auto failing = caflow::testing::spawn_function(sys, []() -> caf::behavior {
    return {[](int32_t) -> caf::result<int32_t> {
      return to_caf_error(errors::unavailable("task /job:worker/task:1 was lost"));
    }};
  });
  caf::scoped_actor self{sys};
  self->request(failing, std::chrono::seconds(5), int32_t{1}).receive(
      [&](int32_t) { FAIL("expected an error"); },
      [&](caf::error& e) {
        CHECK(to_status(e).to_string() == "UNAVAILABLE: task /job:worker/task:1 was lost");
        CHECK(sys.render(e) == "UNAVAILABLE: task /job:worker/task:1 was lost");
      });
  // With a source the rendering is the same: the message already says where.
  CHECK(sys.render(to_caf_error(kernel_error())) == kernel_error().to_string());
  caf::anon_send_exit(failing, caf::exit_reason::user_shutdown);
}
