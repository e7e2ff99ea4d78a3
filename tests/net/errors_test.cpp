#include <doctest/doctest.h>

#include <caf/all.hpp>

#include "net/errors.hpp"
#include "net/protocol.hpp"
#include "test_util/spawn_function.hpp"

using namespace caflow;

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
  caf::anon_send_exit(failing, caf::exit_reason::user_shutdown);
}
