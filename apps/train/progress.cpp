#include "apps/train/progress.hpp"

#include <algorithm>

namespace caflow::train_app {

progress_line::progress_line(int epochs, int64_t steps_per_epoch, int64_t samples_per_step,
                             progress_style style)
    : epochs_(epochs),
      steps_per_epoch_(steps_per_epoch),
      samples_per_step_(samples_per_step),
      style_(style),
      interval_(std::max<int64_t>(1, (steps_per_epoch + 5) / 10)) {}

void progress_line::step(int epoch, int64_t step_in_epoch, int64_t, float loss, double accuracy) {
  ++steps_done_;
  switch (style_) {
    case progress_style::per_epoch: return;
    case progress_style::periodic:
      // The epoch's last step gets end_epoch's line instead.
      if (step_in_epoch % interval_ == 0 && step_in_epoch < steps_per_epoch_)
        print(epoch, step_in_epoch, loss, accuracy, true);
      return;
    case progress_style::live: {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_draw_ < std::chrono::milliseconds(200)) return;
      last_draw_ = now;
      print(epoch, step_in_epoch, loss, accuracy, false);
      return;
    }
  }
}

void progress_line::end_epoch(int epoch, float loss, double accuracy, double test_accuracy) {
  print(epoch, steps_per_epoch_, loss, accuracy, true, test_accuracy);
}

void progress_line::note(const std::string& line) {
  std::printf("%s%s\n", line_open_ ? "\r\033[K" : "", line.c_str());
  line_open_ = false;
  last_draw_ = {};  // redraw the progress line at the next step
  std::fflush(stdout);
}

void progress_line::print(int epoch, int64_t step_in_epoch, float loss, double accuracy,
                          bool newline, double test_accuracy) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(steps_done_ * samples_per_step_) / elapsed : 0;
  const int64_t total = static_cast<int64_t>(epochs_) * steps_per_epoch_;
  const double eta = steps_done_ > 0 ? elapsed / static_cast<double>(steps_done_) *
                                           static_cast<double>(total - steps_skipped_ - steps_done_)
                                     : 0;
  char test[32] = "";
  if (test_accuracy >= 0) std::snprintf(test, sizeof test, "  test accuracy %.4f", test_accuracy);
  std::printf("%sepoch %d/%d  step %lld/%lld  loss %.4f  accuracy %.4f%s  %.0f samples/s  "
              "ETA %d:%02d%s",
              style_ == progress_style::live ? "\r\033[K" : "", epoch + 1, epochs_,
              static_cast<long long>(step_in_epoch), static_cast<long long>(steps_per_epoch_), loss,
              accuracy, test, rate, static_cast<int>(eta) / 60, static_cast<int>(eta) % 60,
              newline ? "\n" : "");
  line_open_ = style_ == progress_style::live && !newline;
  std::fflush(stdout);
}

}  // namespace caflow::train_app
