#pragma once
// Names the calling thread (at most 15 characters, the kernel's limit), so that top -H, perf,
// gdb and /proc/PID/task/*/comm tell caflow's threads apart; a thread otherwise inherits its
// creator's name.
#include <pthread.h>

#include <string>

namespace caflow {

inline void name_this_thread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace caflow
