#pragma once
// Recording a device's work once and replaying it as one launch: on a GPU, a CUDA graph. A
// step of a partition whose shapes repeat queues the same kernels on the same buffers every
// time, so the executor records it once (actors/executor/executor_capture.cpp) and afterwards launches
// the recording instead of dozens of kernels, each with its own launch cost.
//
// While a capture is open on a thread, the work that thread's kernels queue on the device is
// recorded, not run, and the buffers they allocate come from a pool the recording keeps for
// its whole life, so a replay writes where the capture's kernels wrote and nothing else is
// put there in between.
#include <functional>
#include <memory>

#include "graph/core/status.hpp"

namespace caflow {

class device_graph {
 public:
  virtual ~device_graph() = default;
  // Queues the recorded work after what is queued on the device so far; returns without waiting.
  virtual status launch() = 0;
};

class device_capture {
 public:
  virtual ~device_capture() = default;
  // Runs one kernel's host part, `fn`, whose device work goes into the recording. A device that
  // emulates recording (tests) may keep `fn` to call again at each launch.
  virtual status record(std::function<status()> fn) = 0;
  // Closes the recording. On failure nothing recorded has run, and the pool is released once
  // the tensors from it are.
  virtual status_or<std::unique_ptr<device_graph>> finish() = 0;
};

}  // namespace caflow
