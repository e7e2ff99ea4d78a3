#pragma once
// Which processes hold established TCP connections to each other, read from /proc (the
// sockets each process has open, and the kernel's table of TCP connections): a black-box view
// of who talks to whom, for tests that a task connects only where it may.
#include <sys/types.h>

#include <set>
#include <vector>

namespace caflow::testing {

// The processes among `others` that `pid` has at least one established TCP connection with,
// in either direction (on this network namespace's loopback or any other address).
std::set<pid_t> tcp_peers(pid_t pid, const std::vector<pid_t>& others);

}  // namespace caflow::testing
