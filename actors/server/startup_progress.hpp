#pragma once
// What a starting server is waiting for, readable from another thread: a start-up that runs
// past its deadline, or is stopped by a signal, names the steps it had not finished ("looking
// for /job:ps/replica:0/task:0 at 10.0.0.7:2222") instead of ending silently.
#include <map>
#include <mutex>
#include <string>

namespace caflow {

class startup_progress {
 public:
  void begin(const std::string& key, std::string what) {
    std::lock_guard<std::mutex> lock(mu_);
    steps_[key] = std::move(what);
  }
  void end(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    steps_.erase(key);
  }
  // The unfinished steps, "; "-separated, or "nothing pending".
  std::string pending() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (const auto& [key, what] : steps_) out += (out.empty() ? "" : "; ") + what;
    return out.empty() ? "nothing pending" : out;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> steps_;
};

}  // namespace caflow
