#include "net/loop/deadline_clock.hpp"

#include <vector>

namespace caflow {

template <class F>
void deadline_clock::scheduling(F&& update) {
  std::lock_guard guard{mx_};
  update();
  if (!schedule_.empty() && schedule_.begin()->first < sleeps_until_) wake_.notify_one();
}

void deadline_clock::set_ordinary_timeout(time_point t, caf::abstract_actor* self,
                                          caf::atom_value type, uint64_t id) {
  scheduling([&] { super::set_ordinary_timeout(t, self, type, id); });
}

void deadline_clock::set_multi_timeout(time_point t, caf::abstract_actor* self,
                                       caf::atom_value type, uint64_t id) {
  scheduling([&] { super::set_multi_timeout(t, self, type, id); });
}

void deadline_clock::set_request_timeout(time_point t, caf::abstract_actor* self,
                                         caf::message_id id) {
  scheduling([&] { super::set_request_timeout(t, self, id); });
}

void deadline_clock::schedule_message(time_point t, caf::strong_actor_ptr receiver,
                                      caf::mailbox_element_ptr content) {
  scheduling([&] { super::schedule_message(t, std::move(receiver), std::move(content)); });
}

void deadline_clock::schedule_message(time_point t, caf::group target,
                                      caf::strong_actor_ptr sender, caf::message content) {
  scheduling(
      [&] { super::schedule_message(t, std::move(target), std::move(sender), std::move(content)); });
}

// A cancellation only ever makes the timer thread wake for nothing, so it never wakes it.
void deadline_clock::cancel_ordinary_timeout(caf::abstract_actor* self, caf::atom_value type) {
  std::lock_guard guard{mx_};
  super::cancel_ordinary_timeout(self, type);
}

void deadline_clock::cancel_request_timeout(caf::abstract_actor* self, caf::message_id id) {
  std::lock_guard guard{mx_};
  super::cancel_request_timeout(self, id);
}

void deadline_clock::cancel_timeouts(caf::abstract_actor* self) {
  std::lock_guard guard{mx_};
  super::cancel_timeouts(self);
}

void deadline_clock::cancel_all() {
  std::lock_guard guard{mx_};
  super::cancel_all();
}

std::vector<deadline_clock::unique_delayed_event_ptr> deadline_clock::take_due(time_point t) {
  std::vector<unique_delayed_event_ptr> due;
  for (auto i = schedule_.begin(); i != schedule_.end() && i->first <= t;) {
    if (i->second->backlink != actor_lookup_.end()) actor_lookup_.erase(i->second->backlink);
    due.push_back(std::move(i->second));
    i = schedule_.erase(i);
  }
  return due;
}

void deadline_clock::run_dispatch_loop() {
  std::unique_lock guard{mx_};
  while (!stopped_) {
    auto due = take_due(now());
    if (!due.empty()) {
      // Shipped without the lock: delivering a message may release the last reference to an
      // actor, whose cleanup cancels its timeouts here.
      guard.unlock();
      for (auto& event : due) ship(*event);
      due.clear();
      guard.lock();
      continue;
    }
    if (schedule_.empty()) {
      sleeps_until_ = time_point::max();
      wake_.wait(guard);
    } else {
      sleeps_until_ = schedule_.begin()->first;
      wake_.wait_until(guard, sleeps_until_);
    }
    sleeps_until_ = time_point::min();
  }
}

void deadline_clock::cancel_dispatch_loop() {
  std::lock_guard guard{mx_};
  stopped_ = true;
  wake_.notify_one();
}

}  // namespace caflow
