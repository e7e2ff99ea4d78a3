#include "kernels/framework/local_rendezvous.hpp"

#include <utility>

namespace caflow {
namespace {

// Wakes the recvs still waiting in `items` (those holding a callback) with an error, outside
// any lock. Values left in `items` are freed when the caller drops it, also outside the lock.
template <class Items, class ErrorFor>
void wake_waiting(Items& items, ErrorFor&& error_for) {
  for (auto& [key, it] : items) {
    if (!it.recv) continue;
    auto recv = std::move(it.recv);
    recv(error_for(key), tensor{});
  }
}

}  // namespace

local_rendezvous::~local_rendezvous() {
  decltype(steps_) steps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    steps.swap(steps_);
  }
  for (auto& [step_id, table] : steps)
    wake_waiting(table.items, [id = step_id](const std::string& key) {
      return errors::cancelled("the rendezvous was destroyed while a recv of '", key, "' in step ",
                               id, " waited");
    });
}

status local_rendezvous::send(const std::string& key, int64_t step_id, const tensor& value) {
  recv_callback waiting;
  {
    std::lock_guard<std::mutex> lock(mu_);
    step_table& t = steps_[step_id];
    if (!t.aborted.ok()) return t.aborted;
    auto [pos, inserted] = t.items.try_emplace(key);
    item& it = pos->second;
    if (inserted) {
      it.st = item::state::value_waiting;
      it.value = value;
      return {};
    }
    if (it.st != item::state::recv_waiting)
      return errors::already_exists("'", key, "' was already sent in step ", step_id);
    it.st = item::state::matched;
    waiting = std::move(it.recv);
    it.recv = nullptr;
  }
  waiting(status{}, value);
  return {};
}

void local_rendezvous::recv_async(const std::string& key, int64_t step_id, recv_callback done) {
  status error;
  tensor value;
  {
    std::lock_guard<std::mutex> lock(mu_);
    step_table& t = steps_[step_id];
    if (!t.aborted.ok()) {
      error = t.aborted;
    } else {
      auto [pos, inserted] = t.items.try_emplace(key);
      item& it = pos->second;
      if (inserted) {
        it.st = item::state::recv_waiting;
        it.recv = std::move(done);
        return;
      }
      if (it.st == item::state::value_waiting) {
        it.st = item::state::matched;
        value = std::move(it.value);
      } else {
        error = errors::already_exists("'", key, "' was already received in step ", step_id);
      }
    }
  }
  done(error, value);
}

void local_rendezvous::abort_step(int64_t step_id, const status& error) {
  // A pending recv must see an error, whatever the caller passed.
  const status e =
      error.ok() ? errors::internal("step ", step_id, " was aborted with no error") : error;
  std::unordered_map<std::string, item> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    step_table& t = steps_[step_id];
    if (!t.aborted.ok()) return;
    t.aborted = e;
    dropped.swap(t.items);
  }
  wake_waiting(dropped, [&e](const std::string&) { return e; });
}

void local_rendezvous::cleanup_step(int64_t step_id) {
  decltype(steps_)::node_type node;
  {
    std::lock_guard<std::mutex> lock(mu_);
    node = steps_.extract(step_id);
  }
  if (node.empty()) return;
  wake_waiting(node.mapped().items, [step_id](const std::string& key) {
    return errors::cancelled("step ", step_id, " was cleaned up while a recv of '", key,
                             "' waited");
  });
}

size_t local_rendezvous::num_live_steps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_.size();
}

}  // namespace caflow
