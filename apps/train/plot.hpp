#pragma once
// --plot FILE.png: the training curves as a PNG drawn by gnuplot, and FILE.csv with the data
// behind them. gnuplot runs as a child process on a generated script; nothing links to it.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow::train_app {

// What the chief saw while training: every few steps the mean batch loss and accuracy since
// the previous point, and per epoch its averages and the test accuracy.
struct training_history {
  struct step_point {
    int64_t step;  // this client's steps, counted from the start of training (resumes included)
    int epoch;     // 1-based
    double loss, accuracy;
  };
  struct epoch_point {
    int64_t step;  // at the epoch's end
    int epoch;
    double loss, train_accuracy, test_accuracy;
  };
  std::vector<step_point> steps;
  std::vector<epoch_point> epochs;
};

// Averages steps into points, `every` steps per point.
class history_recorder {
 public:
  explicit history_recorder(int64_t every) : every_(every < 1 ? 1 : every) {}
  void step(int64_t step, int epoch, double loss, double accuracy);
  void end_epoch(int64_t step, int epoch, double loss, double train_accuracy,
                 double test_accuracy);
  const training_history& history() const { return history_; }

 private:
  int64_t every_;
  int64_t pending_ = 0;
  double loss_sum_ = 0, accuracy_sum_ = 0;
  training_history history_;
};

// Where the CSV of FILE.png goes: FILE.csv (FILE.png.csv for a name not ending in .png).
std::string csv_path_for(const std::string& png_path);

// The gnuplot executable found in PATH; a clear error naming the package when there is none.
status_or<std::string> find_gnuplot();

// Header "kind,step,epoch,loss,train_accuracy,test_accuracy", then one "step" row per point
// (test_accuracy empty) and one "epoch" row per epoch, in order of step.
status write_history_csv(const training_history& h, const std::string& path);

// Runs `gnuplot` on a generated script that draws the loss (top) and the accuracies (bottom)
// against the step into `png_path`. Errors carry gnuplot's exit status and output.
status plot_history(const training_history& h, const std::string& gnuplot,
                    const std::string& png_path);

}  // namespace caflow::train_app
