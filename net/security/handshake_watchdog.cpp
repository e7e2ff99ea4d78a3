#include "net/security/handshake_watchdog.hpp"

#include <sys/socket.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <thread>
#include <utility>

#include "net/security/basp_guard.hpp"

namespace caflow {
namespace {

class watchdog {
 public:
  static watchdog& instance() {
    static watchdog w;
    return w;
  }

  std::shared_ptr<connection_watch> admit(int fd, const std::string& address,
                                          std::chrono::milliseconds timeout, size_t max_pending) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t& pending = pending_[address];
    if (pending >= max_pending) return nullptr;
    ++pending;
    auto w = std::make_shared<connection_watch>(fd, address);
    // Every deadline is `timeout` after its admission: a queue in admission order stays sorted
    // as long as the timeout is the same, and a shorter one only fires late, never early.
    deadlines_.emplace_back(std::chrono::steady_clock::now() + timeout, w);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    cv_.notify_one();
    return w;
  }

  void release(const std::string& address) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(address);
    if (it == pending_.end()) return;
    if (--it->second == 0) pending_.erase(it);
  }

  size_t pending(const std::string& address) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(address);
    return it == pending_.end() ? 0 : it->second;
  }

  ~watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      if (deadlines_.empty()) {
        cv_.wait(lock);
        continue;
      }
      const auto due = deadlines_.front().first;
      if (std::chrono::steady_clock::now() < due) {
        cv_.wait_until(lock, due);
        continue;
      }
      auto w = std::move(deadlines_.front().second);
      deadlines_.pop_front();
      lock.unlock();  // expire() takes the connection's lock, and may release a slot (ours)
      if (w->expire()) ++basp_guard_stats().handshake_timeouts;
      w.reset();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, size_t> pending_;
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::shared_ptr<connection_watch>>>
      deadlines_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace

void connection_watch::release_slot() {
  if (slot_released_) return;
  slot_released_ = true;
  watchdog::instance().release(address_);
}

void connection_watch::handshake_done() {
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  release_slot();
}

void connection_watch::closed() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  release_slot();
}

bool connection_watch::expire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (done_ || closed_) return false;
  ::shutdown(fd_, SHUT_RDWR);
  return true;
}

std::shared_ptr<connection_watch> watch_handshake(int fd, const std::string& address,
                                                  std::chrono::milliseconds timeout,
                                                  size_t max_pending) {
  return watchdog::instance().admit(fd, address, timeout, max_pending);
}

size_t pending_handshakes(const std::string& address) {
  return watchdog::instance().pending(address);
}

}  // namespace caflow
