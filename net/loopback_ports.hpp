#pragma once
// Ports for the tasks of a cluster that runs on this host (an embedded cluster, a test's server
// processes), chosen before any task binds them.
//
// Binding port 0 would hand out a port from the kernel's ephemeral range, which every outgoing
// connection on the host draws its local port from: between the choice and the task's bind,
// any connect() (another test's, another task's) may take it, and the task then cannot bind
// (a CI run saw a worker wait 27 s for a ps that never listened). So the ports come from just
// below that range (net.ipv4.ip_local_port_range), where only explicit binds go, starting at
// a random place so that concurrent callers rarely pick the same ones; each is checked free by
// binding it.
#include <utility>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow {

// The range [first, last] that `file` (net.ipv4.ip_local_port_range: "first last") names;
// {32768, 60999}, Linux's default, when it cannot be read or makes no sense.
std::pair<int, int> ephemeral_port_range(const char* file = "/proc/sys/net/ipv4/ip_local_port_range");

// Where the ports are looked for, given the ephemeral range: the 16384 ports below it (not
// under 1024), else those above it; empty ({0, -1}) when neither leaves 1024 ports.
std::pair<int, int> loopback_port_pool(std::pair<int, int> ephemeral);

// `n` distinct ports of 127.0.0.1 that nothing had bound a moment ago, from the pool; the
// kernel's ephemeral ports where the pool is empty. UNAVAILABLE when too few are free.
status_or<std::vector<int>> free_loopback_ports(int n);

}  // namespace caflow
