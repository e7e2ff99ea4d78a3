#pragma once
// A session's link to a master at target "caflow://host:port": its own small actor system,
// the master found by name on that task's port (or, for a server in this process with the
// same security settings, handed over directly: actors/server/local_masters.hpp), and blocking calls
// with bounded timeouts. Used by `session`; not thread-safe on its own (session serializes).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "graph/ir/graph_def.hpp"
#include "graph/platform/busy_wait.hpp"
#include "net/protocol.hpp"
#include "net/security/transport_security.hpp"

namespace caflow {

class remote_client {
 public:
  // Errors name the target (malformed, unreachable, no master there, unreadable TLS files);
  // a cluster that refuses `security` (certificate, cluster id) is reported as unreachable.
  static status_or<std::unique_ptr<remote_client>> connect(
      const std::string& target, std::chrono::milliseconds patience,
      std::chrono::milliseconds step_timeout, session_config config = {},
      const transport_security& security = {},
      std::chrono::microseconds busy_poll = default_busy_poll);
  ~remote_client();

  // Sends nodes to the master: creates the master-side session on first use. Not concurrent
  // with itself or open (the session holds its lock); runs may go on meanwhile.
  status extend(const graph_def& more);
  // Creates the master-side session unless it exists. Not concurrent with itself or extend.
  status open();
  // With `trace`, the step is traced and `trace` receives every node it ran.
  // `prepared`, when given, receives what the master reports on the step that prepared the
  // run signature (optimization counts, the placement table if logged); untouched otherwise.
  // Thread-safe once the master-side session exists (open or extend was called): runs of one session
  // may wait on each other (a dequeue from a queue another run fills), as in TF.
  status_or<std::vector<tensor>> run(const std::vector<std::pair<std::string, tensor>>& feeds,
                                     const std::vector<std::string>& fetches,
                                     const std::vector<std::string>& targets,
                                     run_step_reply* prepared = nullptr,
                                     std::vector<trace_event>* trace = nullptr);

  // Tells the master what this client last wrote to its event file (the console's `summaries`
  // and `logdir`); fire and forget. REQUIRES: the master-side session exists.
  status report_summaries(summary_report report);

 private:
  struct impl;
  explicit remote_client(std::unique_ptr<impl> i);
  std::unique_ptr<impl> impl_;
};

}  // namespace caflow
