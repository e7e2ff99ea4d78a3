// status: an OK status is one null pointer; an error keeps its code, message and source through
// copies, prefixes and moves.
#include "graph/core/status.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <utility>

using namespace caflow;

namespace {

status failed_at_mm() {
  return status(error_code::invalid_argument, "bad shape",
                std::make_shared<const error_source>(error_source{
                    "mm", "/job:w/replica:0/task:1/device:CPU:0", "/job:w/replica:0/task:1"}));
}

}  // namespace

// It is made, copied and destroyed on every step's path.
static_assert(sizeof(status) == sizeof(void*), "an OK status is one pointer");

TEST_CASE("an OK status has no message and no source") {
  const status ok;
  CHECK(ok.ok());
  CHECK(ok.code() == error_code::ok);
  CHECK(ok.message().empty());
  CHECK_FALSE(ok.source());
  CHECK(ok.to_string() == "OK");
  CHECK(status(error_code::ok, "ignored").ok());
  CHECK(status(error_code::ok, "ignored").message().empty());
  CHECK(ok.with_context("node 'x'").ok());
}

TEST_CASE("copies of an error are equal and independent; a moved-from status is OK") {
  const status original = failed_at_mm();
  status copy = original;
  CHECK(copy.code() == error_code::invalid_argument);
  CHECK(copy.message() == "bad shape");
  REQUIRE(copy.source());
  CHECK(copy.source() == original.source());  // the source is shared, not copied
  copy = copy.with_context("task /job:w/replica:0/task:1");
  CHECK(original.message() == "bad shape");
  CHECK(copy.message() == "task /job:w/replica:0/task:1: bad shape");
  CHECK(copy.source()->node == "mm");
  status assigned;
  assigned = original;
  CHECK(assigned.to_string() == "INVALID_ARGUMENT: bad shape");
  status moved = std::move(assigned);
  CHECK(moved.code() == error_code::invalid_argument);
  CHECK(assigned.ok());  // NOLINT(bugprone-use-after-move): what is left is documented
  assigned = status{};
  CHECK(assigned.ok());
}

TEST_CASE("with_source sets a source only where there is none") {
  const auto recv = std::make_shared<const error_source>(error_source{"recv", "d", "t"});
  CHECK(failed_at_mm().with_source(recv).source()->node == "mm");
  const status plain = errors::aborted("step 7 aborted");
  CHECK_FALSE(plain.source());
  const status sourced = plain.with_source(recv);
  CHECK(sourced.source() == recv);
  CHECK(sourced.message() == plain.message());
  CHECK_FALSE(plain.source());  // the original is untouched
  CHECK_FALSE(status{}.with_source(recv).source());
}
