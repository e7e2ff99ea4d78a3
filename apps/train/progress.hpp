#pragma once
// The chief's progress: epoch, step, loss, accuracy, samples/s and ETA. On a terminal one line
// redrawn in place; otherwise (logs, CI, pipes) plain lines, every ~10% of an epoch and at
// each epoch's end; with --no-progress only the epochs' lines.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace caflow::train_app {

enum class progress_style {
  live,       // redrawn in place ("\r"), at most 5 times a second
  periodic,   // a line every ~10% of an epoch and one per epoch
  per_epoch,  // a line per epoch
};

class progress_line {
 public:
  progress_line(int epochs, int64_t steps_per_epoch, int64_t samples_per_step,
                progress_style style);

  // After each of this client's steps; `global_step` counts every replica's updates.
  void step(int epoch, int64_t step_in_epoch, int64_t global_step, float loss, double accuracy);
  // A resumed run: `steps` were done before this process started. The rate and the ETA count
  // only the steps this process runs.
  void skip(int64_t steps) { steps_skipped_ = steps; }
  // Ends the line of an epoch; `test_accuracy` is shown when not negative.
  void end_epoch(int epoch, float loss, double accuracy, double test_accuracy = -1);
  // A line of its own (e.g. a checkpoint written) that a live line does not overwrite.
  void note(const std::string& line);

 private:
  void print(int epoch, int64_t step_in_epoch, float loss, double accuracy, bool newline,
             double test_accuracy = -1);

  int epochs_;
  int64_t steps_per_epoch_, samples_per_step_;
  progress_style style_;
  int64_t interval_;  // periodic: steps between lines
  bool line_open_ = false;  // live: a line without its newline is on the screen
  int64_t steps_done_ = 0;  // by this process
  int64_t steps_skipped_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace caflow::train_app
