#pragma once
// Whether two tasks run on the same host (and may share memory, docs/shm_transport.md): the
// kernel's boot id, a random UUID drawn at every boot, is the same for every process of one
// running kernel and differs between hosts (and across reboots of one host). Host names and
// addresses do not tell: containers share a kernel under other names, and 127.0.0.1 is every
// host's.
#include <string>

namespace caflow {

// /proc/sys/kernel/random/boot_id without its newline; empty where it cannot be read (then no
// task counts as on this host).
const std::string& this_boot_id();

}  // namespace caflow
