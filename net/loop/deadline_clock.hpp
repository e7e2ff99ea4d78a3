#pragma once
// An actor clock whose timer thread sleeps until its earliest deadline and is woken only by a
// deadline earlier than that one.
//
// CAF 0.17's thread_safe_actor_clock hands every set and cancel to its timer thread, waking it:
// a request with a timeout costs two wake-ups, one when it is sent and one when its response
// cancels the timeout. A step sends several requests, so on a machine with few cores those
// wake-ups compete with the step itself for a core. Here callers update the schedule under a
// mutex; a cancellation or a deadline later than the earliest one never wakes the thread.
#include <caf/detail/simple_actor_clock.hpp>
#include <condition_variable>
#include <mutex>

namespace caflow {

class deadline_clock final : public caf::detail::simple_actor_clock {
 public:
  using super = caf::detail::simple_actor_clock;

  void set_ordinary_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type,
                            uint64_t id) override;
  void set_multi_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type,
                         uint64_t id) override;
  void set_request_timeout(time_point t, caf::abstract_actor* self, caf::message_id id) override;
  void cancel_ordinary_timeout(caf::abstract_actor* self, caf::atom_value type) override;
  void cancel_request_timeout(caf::abstract_actor* self, caf::message_id id) override;
  void cancel_timeouts(caf::abstract_actor* self) override;
  void schedule_message(time_point t, caf::strong_actor_ptr receiver,
                        caf::mailbox_element_ptr content) override;
  void schedule_message(time_point t, caf::group target, caf::strong_actor_ptr sender,
                        caf::message content) override;
  void cancel_all() override;

  // Ships due events until cancel_dispatch_loop(); runs on the clock's own thread.
  void run_dispatch_loop();
  void cancel_dispatch_loop();

 private:
  // Runs `update` on the schedule, waking the timer thread if the earliest deadline moved up.
  template <class F>
  void scheduling(F&& update);

  // Takes the events due at `t` out of the schedule; called with mx_ held.
  std::vector<unique_delayed_event_ptr> take_due(time_point t);

  std::mutex mx_;
  std::condition_variable wake_;
  // What the timer thread sleeps until; time_point::min() while it is awake, since it looks at
  // the schedule again before it sleeps.
  time_point sleeps_until_ = time_point::min();
  bool stopped_ = false;
};

}  // namespace caflow
