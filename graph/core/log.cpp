#include "graph/core/log.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace caflow {
namespace {

// CAFLOW_LOG_LEVEL as the process starts, so programs that never call init_logging (tests,
// embedded clusters) honour it too; warn when unset or unreadable (init_logging reports that).
int level_from_environment() {
  const char* env = std::getenv("CAFLOW_LOG_LEVEL");
  if (env == nullptr || *env == '\0') return static_cast<int>(log_level::warn);
  auto l = parse_log_level(env);
  return static_cast<int>(l.ok() ? *l : log_level::warn);
}

// Written at start-up only (here and by init_logging; see the header); relaxed loads elsewhere.
std::atomic<int> level{level_from_environment()};

char level_letter(log_level l) {
  switch (l) {
    case log_level::error: return 'E';
    case log_level::warn: return 'W';
    case log_level::info: return 'I';
    case log_level::debug: return 'D';
  }
  return '?';
}

}  // namespace

status_or<log_level> parse_log_level(std::string_view name) {
  if (name == "error") return log_level::error;
  if (name == "warn" || name == "warning") return log_level::warn;
  if (name == "info") return log_level::info;
  if (name == "debug") return log_level::debug;
  return errors::invalid_argument("unknown log level '", std::string(name),
                                  "' (error, warn, info or debug)");
}

status init_logging(std::string_view flag) {
  std::string_view chosen = flag;
  const char* source = "--log-level";
  if (chosen.empty()) {
    const char* env = std::getenv("CAFLOW_LOG_LEVEL");
    if (env == nullptr || *env == '\0') return {};
    chosen = env;
    source = "CAFLOW_LOG_LEVEL";
  }
  auto l = parse_log_level(chosen);
  if (!l.ok()) return l.get_status().with_context(source);
  level.store(static_cast<int>(*l), std::memory_order_relaxed);
  return {};
}

log_level current_log_level() {
  return static_cast<log_level>(level.load(std::memory_order_relaxed));
}

void log_line(log_level l, std::string_view task, std::string_view message) {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t secs = system_clock::to_time_t(now);
  const auto millis = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  localtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  char ms[8];
  std::snprintf(ms, sizeof ms, ".%03d", static_cast<int>(millis));
  std::string line;
  line.reserve(64 + task.size() + message.size());
  line.append(stamp).append(ms).append(1, ' ').append(1, level_letter(l)).append(1, ' ');
  line.append(task.empty() ? std::string_view("-") : task).append("] ").append(message);
  line.push_back('\n');
  // One write: lines from different threads stay whole.
  const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  static_cast<void>(written);
}

}  // namespace caflow
