#include "net/introductions.hpp"

#include <caf/all.hpp>
#include <caf/io/basp_broker.hpp>
#include <caf/io/middleman.hpp>

#include "net/middleman.hpp"

namespace caflow {

struct introductions::book {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, caf::strong_actor_ptr> by_task;
};

namespace {

// The book is an argument, not a capture: CAF 0.17 dereferences a null tuple pointer when a
// spawned function has no arguments (undefined behavior UBSan reports).
caf::behavior take_introductions(caf::event_based_actor*,
                                 std::shared_ptr<introductions::book> b) {
  return {
      [b](cf_introduce_atom, const std::string& task, const caf::strong_actor_ptr& who) {
        {
          std::lock_guard<std::mutex> lock(b->mu);
          b->by_task[task] = who;
        }
        b->cv.notify_all();
        return caf::ok_atom::value;
      },
  };
}

}  // namespace

introductions::introductions(caf::actor_system& sys)
    : sys_(sys), book_(std::make_shared<book>()) {
  actor_ = sys.spawn(take_introductions, book_);
  announce_role(sys, introductions_role, caf::actor_cast<caf::strong_actor_ptr>(actor_));
}

introductions::~introductions() {
  sys_.registry().erase(introductions_role);
  caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
}

caf::strong_actor_ptr introductions::find(const std::string& task) const {
  std::lock_guard<std::mutex> lock(book_->mu);
  auto it = book_->by_task.find(task);
  return it == book_->by_task.end() ? nullptr : it->second;
}

void introductions::wait_until(std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock<std::mutex> lock(book_->mu);
  const size_t known = book_->by_task.size();
  book_->cv.wait_until(lock, deadline, [&] { return book_->by_task.size() != known; });
}

status introduce(caf::actor_system& sys, const caf::strong_actor_ptr& peer,
                 const std::string& task, const caf::strong_actor_ptr& actor,
                 std::chrono::milliseconds timeout) {
  if (!peer) return errors::internal("introducing ", task, " to nobody");
  // Through BASP's named-actor forwarding, the way remote_lookup asks a config server: the
  // peer's node is reached over the connection that found `peer`, never a new one.
  auto basp = sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  caf::scoped_actor self{sys, true};
  self->send(basp, caf::forward_atom::value, peer->node(), introductions_role,
             caf::make_message(cf_introduce_atom::value, task, actor));
  bool acknowledged = false;
  self->receive([&](caf::ok_atom) { acknowledged = true; }, caf::after(timeout) >> [] {});
  if (!acknowledged)
    return errors::unavailable("task ", task, " introduced itself to ", caf::to_string(peer->node()),
                               " but heard no acknowledgement within ", timeout.count(), " ms");
  return {};
}

}  // namespace caflow
