#pragma once
// The chief's live progress line: epoch, step, loss, accuracy, samples/s and ETA, redrawn in
// place on a terminal and printed once per epoch otherwise (logs, CI).
#include <chrono>
#include <cstdint>
#include <cstdio>

namespace caflow::train_app {

class progress_line {
 public:
  progress_line(int epochs, int64_t steps_per_epoch, int64_t samples_per_step, bool live);

  // After each of this client's steps; `global_step` counts every replica's updates.
  void step(int epoch, int64_t step_in_epoch, int64_t global_step, float loss, double accuracy);
  // A resumed run: `steps` were done before this process started. The rate and the ETA count
  // only the steps this process runs.
  void skip(int64_t steps) { steps_skipped_ = steps; }
  // Ends the line of an epoch.
  void end_epoch(int epoch, float loss, double accuracy);

 private:
  void print(int epoch, int64_t step_in_epoch, float loss, double accuracy, bool newline);

  int epochs_;
  int64_t steps_per_epoch_, samples_per_step_;
  bool live_;
  int64_t steps_done_ = 0;  // by this process
  int64_t steps_skipped_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace caflow::train_app
