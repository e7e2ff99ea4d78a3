#pragma once
// A cluster of real servers in the test's process on free loopback ports: `ps` ps tasks and
// `workers` worker tasks, each with one intra-op and one inter-op thread. The servers are
// started together (each waits for the others), ps tasks first in the returned order.
#include <memory>
#include <vector>

#include "actors/server/server.hpp"
#include "graph/core/status.hpp"

namespace caflow::testing {

// `ps_memory_limit_bytes` (0: none) caps each ps task's CPU memory.
status_or<std::vector<std::unique_ptr<server>>> start_in_process_cluster(
    int ps, int workers, int64_t ps_memory_limit_bytes = 0);

}  // namespace caflow::testing
