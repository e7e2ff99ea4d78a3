// The thread that runs an actor's blocking work (net/loop/blocking_worker.hpp): jobs in order, off
// the caller's thread; at its end, the running job finishes and the queued ones are dropped.
#include "net/loop/blocking_worker.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

using namespace caflow;
using namespace std::chrono_literals;

TEST_CASE("a blocking worker runs its jobs in order on a thread of its own") {
  blocking_worker worker("test");
  std::mutex mu;
  std::vector<int> order;
  std::promise<std::thread::id> ran_on;
  for (int i = 0; i < 5; ++i)
    worker.post([&, i] {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
      if (i == 4) ran_on.set_value(std::this_thread::get_id());
    });
  auto where = ran_on.get_future();
  REQUIRE(where.wait_for(10s) == std::future_status::ready);
  CHECK(where.get() != std::this_thread::get_id());
  std::lock_guard<std::mutex> lock(mu);
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
}

TEST_CASE("a blocking worker's end waits for the running job and drops the queued ones") {
  std::atomic<bool> first_done{false};
  std::atomic<int> later_ran{0};
  std::promise<void> started;
  {
    blocking_worker worker("test");
    worker.post([&] {
      started.set_value();
      std::this_thread::sleep_for(100ms);
      first_done = true;
    });
    for (int i = 0; i < 3; ++i) worker.post([&] { ++later_ran; });
    REQUIRE(started.get_future().wait_for(10s) == std::future_status::ready);
  }
  CHECK(first_done);  // joined after it
  CHECK(later_ran == 0);
}
