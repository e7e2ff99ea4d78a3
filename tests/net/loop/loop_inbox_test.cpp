// net/loop/loop_inbox: other threads' jobs reach a polling loop through memory, a sleeping loop is
// woken once for all of them, nothing is run twice or lost, and what is never run is released.
#include <doctest/doctest.h>

#include <caf/resumable.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "net/loop/loop_inbox.hpp"

using namespace caflow;

namespace {

// A job that records its id when run, and counts its references.
struct recorded_job final : caf::resumable {
  recorded_job(int id, std::atomic<int>& refs) : id(id), refs(refs) { ++refs; }
  subtype_t subtype() const override { return function_object; }
  resume_result resume(caf::execution_unit*, size_t) override { return done; }
  void intrusive_ptr_add_ref_impl() override { ++refs; }
  void intrusive_ptr_release_impl() override { --refs; }
  int id;
  std::atomic<int>& refs;
};

// The inbox's runner for these tests: records the order and gives the job's reference back.
struct runner {
  std::vector<int>* ran;
  void operator()(caf::resumable* job) const {
    ran->push_back(static_cast<recorded_job*>(job)->id);
    caf::intrusive_ptr_release(job);
  }
};

}  // namespace

TEST_CASE("a loop that polls takes pushed jobs in order and is never asked to wake") {
  std::vector<int> ran;
  loop_inbox inbox{runner{&ran}};
  inbox.loop_polls(true);
  std::atomic<int> refs{0};
  std::vector<std::unique_ptr<recorded_job>> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back(std::make_unique<recorded_job>(i, refs));
  for (auto& j : jobs) CHECK_FALSE(inbox.push(j.get()));
  CHECK(inbox.poll() == loop_polled::result::worked);
  CHECK(ran == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(refs == 0);
  CHECK(inbox.poll() == loop_polled::result::idle);
  CHECK_FALSE(inbox.needs_polling());
}

TEST_CASE("a sleeping loop is asked to wake once for all the jobs that come before it does") {
  std::vector<int> ran;
  loop_inbox inbox{runner{&ran}};
  std::atomic<int> refs{0};
  recorded_job a{1, refs}, b{2, refs}, c{3, refs};
  CHECK(inbox.push(&a));        // the loop sleeps: wake it
  CHECK_FALSE(inbox.push(&b));  // a wake-up is on its way already
  inbox.woken();
  CHECK(inbox.poll() == loop_polled::result::worked);
  CHECK(ran == std::vector<int>{1, 2});
  CHECK(inbox.push(&c));  // asleep again, and the last wake-up came: another one
  inbox.woken();
  CHECK(inbox.poll() == loop_polled::result::worked);
  CHECK(ran == std::vector<int>{1, 2, 3});
}

TEST_CASE("jobs never taken are released with the inbox") {
  std::atomic<int> refs{0};
  recorded_job a{1, refs}, b{2, refs};
  {
    std::vector<int> ran;
    loop_inbox inbox{runner{&ran}};
    (void)inbox.push(&a);
    (void)inbox.push(&b);
    CHECK(refs == 2);
  }
  CHECK(refs == 0);
}

TEST_CASE("jobs pushed by many threads while the loop starts and stops polling all run once") {
  // The loop's side as the busy poller does it: stop polling, look once more, sleep until
  // woken. A job pushed between those steps must not wait for a wake-up that never comes.
  constexpr int threads = 4, per_thread = 20000;
  std::vector<int> ran;
  loop_inbox inbox{runner{&ran}};
  std::atomic<int> refs{0};
  std::vector<std::unique_ptr<recorded_job>> jobs;
  for (int i = 0; i < threads * per_thread; ++i)
    jobs.push_back(std::make_unique<recorded_job>(i, refs));
  std::atomic<int> wakeups_asked{0}, pushed{0};
  std::vector<std::thread> pushers;
  for (int t = 0; t < threads; ++t)
    pushers.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        if (inbox.push(jobs[static_cast<size_t>(t * per_thread + i)].get())) ++wakeups_asked;
        ++pushed;
      }
    });
  int wakeups_taken = 0;
  bool polling = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int turn = 0; static_cast<int>(ran.size()) < threads * per_thread; ++turn) {
    if (polling) {
      (void)inbox.poll();
      if (turn % 7 == 0) {  // stop polling, then look once more
        inbox.loop_polls(false);
        polling = false;
        if (inbox.poll() == loop_polled::result::worked) {
          inbox.loop_polls(true);
          polling = true;
        }
      }
    } else if (wakeups_asked.load() > wakeups_taken) {  // the pipe's wake-up
      ++wakeups_taken;
      inbox.woken();
      inbox.loop_polls(true);
      polling = true;
      (void)inbox.poll();
    } else {
      // Asleep, no wake-up asked: a job that came meanwhile would wait here for ever.
      REQUIRE_MESSAGE(std::chrono::steady_clock::now() < give_up,
                      ran.size(), " of ", pushed.load(), " pushed jobs ran; the loop sleeps");
      std::this_thread::yield();
    }
  }
  for (auto& p : pushers) p.join();
  CHECK(static_cast<int>(ran.size()) == threads * per_thread);
  std::vector<int> per(threads, -1);
  for (int id : ran) {  // each thread's jobs in the order it pushed them
    const int t = id / per_thread;
    CHECK(id % per_thread == per[static_cast<size_t>(t)] + 1);
    per[static_cast<size_t>(t)] = id % per_thread;
  }
  CHECK(refs == 0);
}
