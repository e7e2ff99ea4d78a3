#include "kernels/resources/fifo_queue.hpp"

#include <algorithm>

namespace caflow {
namespace {

std::string types_string(const std::vector<dtype>& types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + std::string(dtype_name(types[i]));
  return s + ")";
}

std::string shapes_string(const std::vector<partial_shape>& shapes) {
  std::string s = "(";
  for (size_t i = 0; i < shapes.size(); ++i) s += (i ? ", " : "") + shapes[i].to_string();
  return s + ")";
}

}  // namespace

// A waiter is completed exactly once: by the flush that serves it, by close, or by its
// step's cancellation, whichever removes it from its list first (all under the lock).
struct fifo_queue::enqueue_waiter {
  int64_t id = 0;
  std::vector<tuple> elements;
  size_t next = 0;  // elements[0, next) are in the queue
  enqueue_done done;
  caller from;
  int64_t token = 0;
  bool registered = false;
  bool in_call = true;  // completing during the call that made it: run `done` inline
};

struct fifo_queue::dequeue_waiter {
  int64_t id = 0;
  int64_t requested = 0;
  bool same_shapes = false;
  std::vector<tuple> taken;
  dequeue_done done;
  caller from;
  int64_t token = 0;
  bool registered = false;
  bool in_call = true;
};

fifo_queue::fifo_queue(std::string name, std::vector<dtype> types,
                       std::vector<partial_shape> shapes, int64_t capacity)
    : name_(std::move(name)), types_(std::move(types)), shapes_(std::move(shapes)),
      capacity_(capacity) {}

fifo_queue::~fifo_queue() = default;

status fifo_queue::check_attrs(const std::vector<dtype>& types,
                               const std::vector<partial_shape>& shapes, int64_t capacity) {
  if (types.empty()) return errors::invalid_argument("a queue needs at least one component type");
  for (size_t i = 0; i < types.size(); ++i)
    if (dtype_size(types[i]) == 0)
      return errors::invalid_argument("component ", static_cast<int64_t>(i), " has dtype ",
                                      dtype_name(types[i]), ", which is not an element type");
  if (!shapes.empty() && shapes.size() != types.size())
    return errors::invalid_argument("shapes lists ", static_cast<int64_t>(shapes.size()),
                                    " shapes for ", static_cast<int64_t>(types.size()),
                                    " component types");
  if (capacity == 0 || capacity < -1)
    return errors::invalid_argument("capacity must be -1 (unbounded) or positive, got ", capacity);
  return {};
}

std::string fifo_queue::debug_string() const {
  std::lock_guard<std::mutex> lock(mu_);
  return "FIFOQueue '" + name_ + "' " + types_string(types_) + " size " +
         std::to_string(items_.size()) + (capacity_ < 0 ? "" : "/" + std::to_string(capacity_)) +
         (closed_ ? " closed" : "");
}

status fifo_queue::matches(const std::vector<dtype>& types, const std::vector<partial_shape>& shapes,
                           int64_t capacity) const {
  if (types != types_)
    return errors::invalid_argument("shared queue '", name_, "' has component types ",
                                    types_string(types_), ", but this node asks for ",
                                    types_string(types));
  if (!(shapes == shapes_))
    return errors::invalid_argument("shared queue '", name_, "' has component shapes ",
                                    shapes_string(shapes_), ", but this node asks for ",
                                    shapes_string(shapes));
  if (capacity != capacity_)
    return errors::invalid_argument("shared queue '", name_, "' has capacity ", capacity_,
                                    ", but this node asks for ", capacity);
  return {};
}

status fifo_queue::check_component(int i, dtype type, const tensor_shape& shape) const {
  if (type != types_[i])
    return errors::invalid_argument("component ", i, " of queue '", name_, "' must be ",
                                    dtype_name(types_[i]), ", got ", dtype_name(type));
  if (!shapes_.empty() && !shapes_[i].compatible_with(shape))
    return errors::invalid_argument("component ", i, " of queue '", name_, "' must have shape ",
                                    shapes_[i].to_string(), ", got ", shape.to_string());
  return {};
}

bool fifo_queue::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

int64_t fifo_queue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(items_.size());
}

bool fifo_queue::register_cancellation_locked(const caller& from, int64_t id, int64_t* token) {
  if (!from.cancellation) return true;
  // Registered under the queue lock: a cancellation arriving now waits for the lock, by which
  // time the waiter is in its list and will be found.
  std::weak_ptr<fifo_queue> self = weak_from_this();
  return from.cancellation->register_callback(token, [self, id] {
    if (auto q = self.lock()) q->cancel_waiter(id);
  });
}

void fifo_queue::enqueue(std::vector<tuple> elements, const caller& from, enqueue_done done) {
  completions out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) {
      out.push_back({nullptr, [done = std::move(done), name = name_] {
                       done(errors::cancelled("queue '", name, "' is closed"));
                     }});
    } else {
      auto w = std::make_unique<enqueue_waiter>();
      w->id = next_waiter_++;
      w->elements = std::move(elements);
      w->done = std::move(done);
      w->from = from;
      enqueue_waiter* raw = w.get();
      if (!register_cancellation_locked(from, w->id, &w->token)) {
        finish_enqueue_locked(*raw, errors::cancelled("enqueue to queue '", name_,
                                                      "' was cancelled"), out);
      } else {
        w->registered = from.cancellation != nullptr;
        enqueuers_.push_back(std::move(w));
        flush_locked(out);
        // Still waiting: whoever completes it later schedules the completion on its device.
        for (auto& e : enqueuers_)
          if (e.get() == raw) e->in_call = false;
      }
    }
  }
  run(out);
}

void fifo_queue::dequeue(int64_t n, bool same_shapes, const caller& from, dequeue_done done) {
  completions out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto w = std::make_unique<dequeue_waiter>();
    w->id = next_waiter_++;
    w->requested = n;
    w->same_shapes = same_shapes;
    w->done = std::move(done);
    w->from = from;
    dequeue_waiter* raw = w.get();
    if (!register_cancellation_locked(from, w->id, &w->token)) {
      finish_dequeue_locked(*raw, errors::cancelled("dequeue from queue '", name_,
                                                    "' was cancelled"), out);
    } else {
      w->registered = from.cancellation != nullptr;
      dequeuers_.push_back(std::move(w));
      flush_locked(out);
      for (auto& d : dequeuers_)
        if (d.get() == raw) d->in_call = false;
    }
  }
  run(out);
}

void fifo_queue::close(bool cancel_pending_enqueues) {
  completions out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      while (!enqueuers_.empty()) {
        finish_enqueue_locked(*enqueuers_.front(),
                              errors::cancelled("queue '", name_,
                                                "' was closed with cancel_pending_enqueues"),
                              out);
        enqueuers_.pop_front();
      }
    }
    flush_locked(out);
  }
  run(out);
}

void fifo_queue::flush_locked(completions& out) {
  for (;;) {
    bool progress = true;
    while (progress) {
      progress = false;
      while (!enqueuers_.empty()) {
        enqueue_waiter& w = *enqueuers_.front();
        while (w.next < w.elements.size() && !full_locked()) {
          items_.push_back(std::move(w.elements[w.next++]));
          progress = true;
        }
        if (w.next < w.elements.size()) break;
        finish_enqueue_locked(w, {}, out);
        enqueuers_.pop_front();
      }
      while (!dequeuers_.empty()) {
        dequeue_waiter& w = *dequeuers_.front();
        status mismatch;
        while (static_cast<int64_t>(w.taken.size()) < w.requested && !items_.empty()) {
          const tuple& next = items_.front();
          if (w.same_shapes && !w.taken.empty()) {
            for (size_t c = 0; c < next.size() && mismatch.ok(); ++c)
              if (next[c].shape() != w.taken.front()[c].shape())
                mismatch = errors::invalid_argument(
                    "cannot stack the elements of queue '", name_, "': component ",
                    static_cast<int64_t>(c), " of element ", static_cast<int64_t>(w.taken.size()),
                    " has shape ", next[c].shape().to_string(), ", element 0's has ",
                    w.taken.front()[c].shape().to_string(),
                    " (give the queue shapes to have this caught on enqueue)");
            if (!mismatch.ok()) break;
          }
          w.taken.push_back(std::move(items_.front()));
          items_.pop_front();
          progress = true;
        }
        if (!mismatch.ok()) {
          finish_dequeue_locked(w, std::move(mismatch), out);
          dequeuers_.pop_front();
          progress = true;
          continue;
        }
        if (static_cast<int64_t>(w.taken.size()) < w.requested) break;
        finish_dequeue_locked(w, {}, out);
        dequeuers_.pop_front();
      }
    }
    // Settled. Any dequeue still waiting has emptied the queue and no enqueue is pending (it
    // would have found room), so on a closed queue nothing can serve it any more. Its failure
    // returns its elements to the front, where the next waiter may be served from them.
    if (!closed_ || dequeuers_.empty()) return;
    dequeue_waiter& w = *dequeuers_.front();
    const auto has = static_cast<int64_t>(items_.size() + w.taken.size());
    finish_dequeue_locked(w,
                          errors::out_of_range("queue '", name_,
                                               "' is closed and has insufficient elements (requested ",
                                               w.requested, ", has ", has, ")"),
                          out);
    dequeuers_.pop_front();
  }
}

void fifo_queue::finish_enqueue_locked(enqueue_waiter& w, status st, completions& out) {
  if (w.registered) w.from.cancellation->deregister_callback(w.token);
  w.registered = false;
  out.push_back({w.in_call ? nullptr : w.from.dev,
                 [done = std::move(w.done), st = std::move(st)] { done(st); }});
}

void fifo_queue::finish_dequeue_locked(dequeue_waiter& w, status st, completions& out) {
  if (w.registered) w.from.cancellation->deregister_callback(w.token);
  w.registered = false;
  std::vector<tuple> taken;
  if (st.ok()) {
    taken = std::move(w.taken);
  } else {
    // A failed dequeue takes nothing: its elements go back in front, in order.
    for (auto it = w.taken.rbegin(); it != w.taken.rend(); ++it) items_.push_front(std::move(*it));
  }
  w.taken.clear();
  out.push_back({w.in_call ? nullptr : w.from.dev,
                 [done = std::move(w.done), st = std::move(st), taken = std::move(taken)]() mutable {
                   done(st, std::move(taken));
                 }});
}

void fifo_queue::cancel_waiter(int64_t id) {
  completions out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The cancellation manager has already dropped the callback: nothing to deregister.
    for (auto it = enqueuers_.begin(); it != enqueuers_.end(); ++it) {
      if ((*it)->id != id) continue;
      (*it)->registered = false;
      finish_enqueue_locked(**it, errors::cancelled("enqueue to queue '", name_, "' was cancelled"),
                            out);
      enqueuers_.erase(it);
      break;
    }
    for (auto it = dequeuers_.begin(); it != dequeuers_.end(); ++it) {
      if ((*it)->id != id) continue;
      (*it)->registered = false;
      finish_dequeue_locked(**it, errors::cancelled("dequeue from queue '", name_,
                                                    "' was cancelled"), out);
      dequeuers_.erase(it);
      break;
    }
    // Returned elements may serve the waiters behind.
    flush_locked(out);
  }
  run(out);
}

void fifo_queue::run(completions& out) {
  for (completion& c : out) {
    if (c.dev) c.dev->schedule(std::move(c.fn));
    else c.fn();
  }
}

}  // namespace caflow
