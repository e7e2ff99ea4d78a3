#include "apps/train/progress.hpp"

namespace caflow::train_app {

progress_line::progress_line(int epochs, int64_t steps_per_epoch, int64_t samples_per_step,
                             bool live)
    : epochs_(epochs),
      steps_per_epoch_(steps_per_epoch),
      samples_per_step_(samples_per_step),
      live_(live) {}

void progress_line::step(int epoch, int64_t step_in_epoch, int64_t, float loss, double accuracy) {
  ++steps_done_;
  if (!live_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  print(epoch, step_in_epoch, loss, accuracy, false);
}

void progress_line::end_epoch(int epoch, float loss, double accuracy) {
  print(epoch, steps_per_epoch_, loss, accuracy, true);
}

void progress_line::print(int epoch, int64_t step_in_epoch, float loss, double accuracy,
                          bool newline) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(steps_done_ * samples_per_step_) / elapsed : 0;
  const int64_t total = static_cast<int64_t>(epochs_) * steps_per_epoch_;
  const double eta = steps_done_ > 0 ? elapsed / static_cast<double>(steps_done_) *
                                           static_cast<double>(total - steps_skipped_ - steps_done_)
                                     : 0;
  std::printf("%sepoch %d/%d  step %lld/%lld  loss %.4f  accuracy %.4f  %.0f samples/s  ETA %d:%02d%s",
              live_ ? "\r\033[K" : "", epoch + 1, epochs_, static_cast<long long>(step_in_epoch),
              static_cast<long long>(steps_per_epoch_), loss, accuracy, rate,
              static_cast<int>(eta) / 60, static_cast<int>(eta) % 60, newline ? "\n" : "");
  std::fflush(stdout);
}

}  // namespace caflow::train_app
