#pragma once
// A small leveled logger: one line per message on stderr, prefixed with the wall-clock time,
// the level and the task that logs ("/job:worker/replica:0/task:1"):
//
//   2024-05-01 12:00:03.512 W /job:worker/replica:0/task:1] lost task /job:ps/replica:0/task:0
//
// Levels error < warn < info < debug; quiet by default (warn and above). The level is the one
// piece of process-wide logger configuration: set once at start-up (a --log-level flag, else the
// CAFLOW_LOG_LEVEL environment variable), before any actor runs, and only read afterwards. That
// makes it safe to share without passing a logger through every actor's state, and it keeps a
// process that hosts several tasks (tests, the embedded cluster) on one level; the task name is
// passed with each message instead, since it differs between the tasks of one process.
#include <string>
#include <string_view>

#include "graph/core/status.hpp"

namespace caflow {

enum class log_level : int { error = 0, warn = 1, info = 2, debug = 3 };

// "error", "warn", "info", "debug" (or "warning").
status_or<log_level> parse_log_level(std::string_view name);

// Sets the level from `flag` when non-empty, else from CAFLOW_LOG_LEVEL when set, else warn.
// Call once, from main, before starting actors. Errors name the bad value and its source.
status init_logging(std::string_view flag);

log_level current_log_level();
inline bool log_enabled(log_level l) { return l <= current_log_level(); }

// Writes one line (one write call, so lines of different threads never interleave).
void log_line(log_level l, std::string_view task, std::string_view message);

template <class... Ts>
void write_log(log_level l, std::string_view task, Ts&&... parts) {
  if (log_enabled(l)) log_line(l, task, errors::concat(std::forward<Ts>(parts)...));
}

}  // namespace caflow
