#pragma once
// Chrome trace JSON (the format chrome://tracing and Perfetto open) from the events of every
// task: one process per task (named by a process_name event), one thread row per device (named
// by a thread_name event), and one complete ("X") event per executed node, in microseconds.
#include <string>
#include <vector>

#include "graph/core/status.hpp"
#include "net/admin_protocol.hpp"

namespace caflow::console {

std::string chrome_trace_json(const std::vector<trace_event>& events);
// Errors name the file.
status write_chrome_trace(const std::vector<trace_event>& events, const std::string& path);

}  // namespace caflow::console
