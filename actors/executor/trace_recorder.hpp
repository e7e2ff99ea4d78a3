#pragma once
// Per-task record of executed nodes, for the console's `trace on|off|save`. Executors check
// `enabled()` once per step; a step that started with tracing on records every node it runs
// (a lock per node, paid only while tracing). Events keep steady-clock times and become
// wall-clock microseconds when collected, so the traces of different tasks line up.
// Thread-safe; shared by a worker and its executors.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "net/admin_protocol.hpp"

namespace caflow {

// What an event says about its node, made once per node when an executor is built.
struct node_trace_info {
  std::string name;
  std::string op;
  std::string device;
  std::string peer;  // _Send: recv_device; _Recv: send_device
  std::string key;   // _Send/_Recv: the rendezvous key
};

class trace_recorder {
 public:
  using clock = std::chrono::steady_clock;

  // Keeps at most `capacity` events; later ones are counted as dropped.
  explicit trace_recorder(std::string task, size_t capacity = size_t{1} << 20);

  bool enabled() const { return on_.load(std::memory_order_relaxed); }
  // Turning tracing on starts a fresh trace.
  void set_enabled(bool on);

  void record(const std::shared_ptr<const node_trace_info>& node, int64_t step_id,
              clock::time_point start, clock::time_point end, int64_t bytes);

  // The events so far, on this task's system clock.
  std::vector<trace_event> collect() const;
  size_t size() const;
  int64_t dropped() const;

 private:
  struct event {
    std::shared_ptr<const node_trace_info> node;
    int64_t step_id;
    clock::time_point start, end;
    int64_t bytes;
  };
  std::string task_;
  size_t capacity_;
  std::atomic<bool> on_{false};
  mutable std::mutex mu_;
  std::vector<event> events_;
  int64_t dropped_ = 0;
};

// The _Recvs of one executor that wait for their value right now, with since when.
struct waiting_recv {
  int64_t step_id = 0;
  std::shared_ptr<const node_trace_info> node;
  std::chrono::steady_clock::time_point since;
};

class recv_waits {
 public:
  void add(int64_t step_id, int node_id, const std::shared_ptr<const node_trace_info>& node);
  void remove(int64_t step_id, int node_id);
  std::vector<waiting_recv> snapshot() const;

 private:
  mutable std::mutex mu_;
  struct entry {
    int64_t step_id;
    int node_id;
    waiting_recv what;
  };
  std::vector<entry> waiting_;  // a handful at a time: one per cut edge of a running step
};

}  // namespace caflow
