// net/loop/local_step_answer: a session of the master's own process gets its step's answer without
// an actor of its own, polling or asleep; a master that drops the answering end unanswered
// answers that it stopped, and the first answer is the one that counts.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "graph/platform/time_scale.hpp"
#include "net/loop/local_step_answer.hpp"

using namespace caflow;
using namespace std::chrono_literals;

namespace {

run_step_reply reply_with(float v) {
  run_step_reply r;
  r.fetches.push_back(wire_tensor{tensor::scalar(v)});
  return r;
}

}  // namespace

TEST_CASE("an answer given before the session waits is taken at once") {
  auto answer = std::make_shared<local_step_answer>();
  local_step_promise promise{answer};
  promise.deliver(reply_with(4.0f));
  auto got = answer->wait(0us, 1ms);
  REQUIRE(got.ok());
  REQUIRE(got->fetches.size() == 1);
  CHECK(got->fetches[0].value.scalar_value<float>() == 4.0f);
}

TEST_CASE("a session asleep on its answer is woken by another thread's answer") {
  auto answer = std::make_shared<local_step_answer>();
  auto promise = std::make_shared<local_step_promise>(answer);
  std::thread master([promise] {
    std::this_thread::sleep_for(20ms);
    promise->deliver(reply_with(7.0f));
  });
  const auto start = std::chrono::steady_clock::now();
  auto got = answer->wait(0us, scaled(10s));  // no polling: straight to sleep
  master.join();
  REQUIRE(got.ok());
  CHECK(got->fetches[0].value.scalar_value<float>() == 7.0f);
  CHECK(std::chrono::steady_clock::now() - start < scaled(5s));
}

TEST_CASE("a polling session takes an answer from another thread") {
  auto answer = std::make_shared<local_step_answer>();
  auto promise = std::make_shared<local_step_promise>(answer);
  std::thread master([promise] { promise->deliver(reply_with(1.5f)); });
  auto got = answer->wait(std::chrono::microseconds(scaled(1s)), scaled(10s));
  master.join();
  REQUIRE(got.ok());
  CHECK(got->fetches[0].value.scalar_value<float>() == 1.5f);
}

TEST_CASE("a failed step answers its error, and only the first answer counts") {
  auto answer = std::make_shared<local_step_answer>();
  {
    local_step_promise promise{answer};
    promise.deliver(errors::invalid_argument("feed 'x' expects float32"));
    promise.deliver(reply_with(1.0f));  // late: dropped
  }  // dropping it answered already: no "stopped"
  auto got = answer->wait(0us, 1ms);
  REQUIRE_FALSE(got.ok());
  CHECK(got.get_status().code() == error_code::invalid_argument);
  CHECK(got.get_status().message() == "feed 'x' expects float32");
}

TEST_CASE("a master that drops the answering end unanswered answers that it stopped") {
  auto answer = std::make_shared<local_step_answer>();
  { local_step_promise promise{answer}; }  // a message that reached no master, say
  auto got = answer->wait(0us, 1ms);
  REQUIRE_FALSE(got.ok());
  CHECK(got.get_status().code() == error_code::unavailable);
  CHECK(got.get_status().message().find("master stopped before it answered") != std::string::npos);
}

TEST_CASE("no answer within the patience is a deadline, not a hang") {
  auto answer = std::make_shared<local_step_answer>();
  local_step_promise promise{answer};  // held, never answered
  const auto start = std::chrono::steady_clock::now();
  auto got = answer->wait(100us, 30ms);
  REQUIRE_FALSE(got.ok());
  CHECK(got.get_status().code() == error_code::deadline_exceeded);
  CHECK(got.get_status().message() == "no answer within 30 ms");
  CHECK(std::chrono::steady_clock::now() - start >= 30ms);
}
