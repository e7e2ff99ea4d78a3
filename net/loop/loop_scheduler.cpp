#include "net/loop/loop_scheduler.hpp"

#include "graph/platform/busy_wait.hpp"
#include "graph/platform/thread_name.hpp"
#include "net/loop/deadline_clock.hpp"
#include "net/loop/loop_inbox.hpp"
#include "net/loop/loop_printer.hpp"

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/network/multiplexer.hpp>
#include <caf/resumable.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace caflow {
namespace {

// Messages an actor handles before the loop turns to its sockets and other actors again.
constexpr size_t loop_throughput = 64;

using steady = std::chrono::steady_clock;

// Keeps the loop turning, polling its sockets and what else it polls (loop_polled), until
// `window` after the last touch() and while anything polled needs it; while steps run on the
// task, and for a while after the last one, the window is step_window_factor times as long.
// It stays queued on the loop (resume_later) rather than being posted anew for every turn.
class busy_poller final : public caf::io::network::multiplexer::runnable {
 public:
  // `waiting`: how many actors are queued on the loop and have not run yet.
  busy_poller(std::chrono::microseconds window, const std::atomic<size_t>& waiting,
              std::shared_ptr<loop_polled> inbox)
      : window_(window), step_window_(window * step_window_factor), waiting_(waiting),
        polled_{std::move(inbox)} {}

  void step_running(bool running, caf::io::network::multiplexer& loop) {
    if (running) {
      ++steps_;
    } else if (steps_ > 0) {
      --steps_;
      last_step_end_ = steady::now();
    }
    touch(loop);
  }

  // Called on the loop's thread whenever an actor runs there.
  void touch(caf::io::network::multiplexer& loop) {
    last_touch_ = steady::now();
    if (queued_) return;
    queued_ = true;
    tell_polled(true);
    intrusive_ptr_add_ref(this);  // the loop's reference, released when resume() returns done
    loop.exec_later(this);
  }

  void add(std::shared_ptr<loop_polled> p, caf::io::network::multiplexer& loop) {
    p->loop_polls(queued_);
    const bool needs = p->needs_polling();
    polled_.push_back(std::move(p));
    if (needs) touch(loop);
  }

  resume_result resume(caf::execution_unit*, size_t) override {
    if (poll_all()) last_touch_ = steady::now();  // what it delivered runs actors soon
    const auto now = steady::now();
    const bool in_steps = steps_ > 0 || now - last_step_end_ < step_window_;
    if (now - last_touch_ > (in_steps ? step_window_ : window_) && !needed()) {
      // Readers say they stop polling, then look once more: a writer that pushed before it saw
      // that has left its bytes where this last look finds them (net/ring/shm_ring.hpp).
      tell_polled(false);
      if (!poll_all()) {
        queued_ = false;
        return done;
      }
      tell_polled(true);
      last_touch_ = steady::now();
    }
    if (busy_poller_yields(++polls_, waiting_.load(std::memory_order_relaxed))) sched_yield();
    return resume_later;
  }

 private:
  bool poll_all() {
    bool worked = false, gone = false;
    // By index: what a poll runs (an actor, a read that opens a connection) may add to polled_.
    for (size_t i = 0; i < polled_.size(); ++i) {
      const auto r = polled_[i]->poll();
      worked |= r == loop_polled::result::worked;
      if (r == loop_polled::result::gone) {
        gone = true;
        polled_[i] = nullptr;
      }
    }
    if (gone) std::erase(polled_, nullptr);
    return worked;
  }
  bool needed() const {
    return std::any_of(polled_.begin(), polled_.end(),
                       [](const std::shared_ptr<loop_polled>& p) { return p->needs_polling(); });
  }
  void tell_polled(bool polling) {
    for (auto& p : polled_) p->loop_polls(polling);
  }

  std::chrono::microseconds window_, step_window_;
  const std::atomic<size_t>& waiting_;
  steady::time_point last_touch_;
  int steps_ = 0;  // steps (or a worker's partition runs) in flight on this task
  steady::time_point last_step_end_;
  bool queued_ = false;
  unsigned polls_ = 0;
  std::vector<std::shared_ptr<loop_polled>> polled_;
};

class loop_coordinator final : public caf::scheduler::abstract_coordinator {
 public:
  loop_coordinator(caf::actor_system& sys, std::chrono::microseconds busy_poll)
      : abstract_coordinator(sys) {
    if (busy_poll.count() <= 0) return;
    inbox_ = std::make_shared<loop_inbox>([this](caf::resumable* job) {
      run(job, system().middleman().backend());
    });
    poller_ = caf::make_counted<busy_poller>(busy_poll, waiting_, inbox_);
  }

  // Takes over the reference that comes with `job`, as CAF's schedulers do.
  void enqueue(caf::resumable* job) override {
    // CAF 0.17 schedules an idle actor on its sender's execution unit, so an actor of another
    // system in this process (a local session's client asking a server's master) would run on
    // this loop. It goes to its own: there it may spawn, and a spawn pins its system's logger to
    // the spawning thread, which would then keep that system's destructor waiting until this
    // loop's thread ends.
    if (job->subtype() == caf::resumable::scheduled_actor) {
      auto& home = static_cast<caf::scheduled_actor*>(job)->home_system();
      if (&home != &system()) return home.scheduler().enqueue(job);
    }
    auto& loop = system().middleman().backend();
    waiting_.fetch_add(1, std::memory_order_relaxed);
    if (inbox_ && std::this_thread::get_id() != loop.thread_id()) {
      if (inbox_->push(job))
        loop.post([this] {
          inbox_->woken();
          (void)inbox_->poll();
        });
      return;
    }
    // Owned by the posted function until it runs: a job posted after the loop stopped is
    // released with the function when the multiplexer drains its pipe, not leaked.
    loop.post([this, owned = caf::intrusive_ptr<caf::resumable>{job, false}, &loop]() mutable {
      run(owned.detach(), loop);
    });
  }

  caf::actor_clock& clock() noexcept override { return clock_; }

  busy_poller* poller() const { return poller_.get(); }

  void start() override {
    timer_ = std::thread([this] {
      name_this_thread("cf.clock");
      system().thread_started();
      clock_.run_dispatch_loop();
      system().thread_terminates();
    });
    // Not abstract_coordinator::start(): its printer is a detached actor, a thread of its own.
    utility_actors_[printer_id] = spawn_loop_printer(system());
  }

  void stop() override {
    // The loop has stopped by now (the middleman stops before the scheduler), so an exit
    // message would never reach the printer, and stop_actors() would wait for it forever.
    // Dropping the last reference ends it instead.
    utility_actors_[printer_id] = nullptr;
    clock_.cancel_dispatch_loop();
    if (timer_.joinable()) timer_.join();
  }

 private:
  void run(caf::resumable* job, caf::io::network::multiplexer& loop) {
    waiting_.fetch_sub(1, std::memory_order_relaxed);
    if (poller_) poller_->touch(loop);
    switch (job->resume(&loop, std::min(max_throughput(), loop_throughput))) {
      case caf::resumable::resume_later:
        enqueue(job);  // behind whatever else waits on the loop
        break;
      case caf::resumable::done:
      case caf::resumable::awaiting_message:
        caf::intrusive_ptr_release(job);
        break;
      case caf::resumable::shutdown_execution_unit:
        break;
    }
  }

  deadline_clock clock_;
  std::thread timer_;
  std::atomic<size_t> waiting_{0};  // before poller_, which reads it
  // Other threads' jobs while the loop polls (net/loop/loop_inbox.hpp); null without polling.
  std::shared_ptr<loop_inbox> inbox_;
  caf::intrusive_ptr<busy_poller> poller_;
};

busy_poller* poller_of(caf::actor_system& sys) {
  auto* loop = dynamic_cast<loop_coordinator*>(&sys.scheduler());
  return loop ? loop->poller() : nullptr;
}

}  // namespace

bool loop_busy_polls(caf::actor_system& sys) { return poller_of(sys) != nullptr; }

bool poll_on_loop(caf::actor_system& sys, std::shared_ptr<loop_polled> p) {
  auto* poller = poller_of(sys);
  if (!poller) return false;
  poller->add(std::move(p), sys.middleman().backend());
  return true;
}

void keep_loop_polling(caf::actor_system& sys) {
  if (auto* poller = poller_of(sys)) poller->touch(sys.middleman().backend());
}

void note_step_running(caf::actor_system& sys, bool running) {
  if (auto* poller = poller_of(sys)) poller->step_running(running, sys.middleman().backend());
}

void run_actors_on_network_loop(caf::actor_system_config& cfg,
                                std::chrono::microseconds busy_poll) {
  cfg.module_factories.push_back([busy_poll](caf::actor_system& sys) -> caf::actor_system::module* {
    return new loop_coordinator(sys, busy_poll);
  });
  // CAF's middleman actor (and caf::openssl's) on the loop too, not on threads of their own:
  // caflow opens ports and connects through its own connection manager
  // (net/connection_manager.hpp), so they serve only a test's publish or remote_actor.
  cfg.set("middleman.attach-utility-actors", true);
}

}  // namespace caflow
