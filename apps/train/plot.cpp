#include "apps/train/plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace caflow::train_app {
namespace {

namespace fs = std::filesystem;

// Six significant digits are plenty for a curve and keep the CSV readable.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The curves' data inline, as gnuplot datablocks, so the script stands alone.
void datablocks(std::ostream& out, const training_history& h) {
  out << "$steps << EOD\n";
  for (const auto& p : h.steps)
    out << p.step << ' ' << number(p.loss) << ' ' << number(p.accuracy) << '\n';
  out << "EOD\n$epochs << EOD\n";
  for (const auto& p : h.epochs)
    out << p.step << ' ' << number(p.train_accuracy) << ' ' << number(p.test_accuracy) << ' '
        << number(p.loss) << '\n';
  out << "EOD\n";
}

// gnuplot strings are single-quoted; a quote inside is doubled.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string script(const training_history& h, const std::string& png_path) {
  std::ostringstream s;
  datablocks(s, h);
  s << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
       "  set terminal pngcairo size 1000,800 font ',10'\n"
       "} else {\n"
       "  set terminal png size 1000,800\n"
       "}\n"
    << "set output " << quoted(png_path) << "\n"
    << "set multiplot layout 2,1\n"
       "set grid\n"
       "set key top right\n"
       "set title 'training loss'\n"
       "set xlabel 'step'\n"
       "set ylabel 'cross entropy'\n"
       "plot $steps using 1:2 with lines title 'train (batches)', \\\n"
       "     $epochs using 1:4 with linespoints pt 7 title 'train (epoch mean)'\n"
       "set title 'accuracy'\n"
       "set key bottom right\n"
       "set ylabel 'accuracy'\n"
       "set yrange [0:1]\n"
       "plot $steps using 1:3 with lines title 'train (batches)', \\\n"
       "     $epochs using 1:2 with linespoints pt 7 title 'train (epoch)', \\\n"
       "     $epochs using 1:3 with linespoints pt 5 title 'test (epoch)'\n"
       "unset multiplot\n"
       "set output\n";
  return s.str();
}

// The output of a failed gnuplot, for the error message.
std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

void history_recorder::step(int64_t step, int epoch, double loss, double accuracy) {
  loss_sum_ += loss;
  accuracy_sum_ += accuracy;
  if (++pending_ < every_) return;
  const auto n = static_cast<double>(pending_);
  history_.steps.push_back({step, epoch, loss_sum_ / n, accuracy_sum_ / n});
  pending_ = 0;
  loss_sum_ = accuracy_sum_ = 0;
}

void history_recorder::end_epoch(int64_t step, int epoch, double loss, double train_accuracy,
                                 double test_accuracy) {
  history_.epochs.push_back({step, epoch, loss, train_accuracy, test_accuracy});
}

std::string csv_path_for(const std::string& png_path) {
  fs::path p(png_path);
  if (p.extension() == ".png") return p.replace_extension(".csv").string();
  return png_path + ".csv";
}

status_or<std::string> find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::istringstream in(dirs);
  for (std::string dir; std::getline(in, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return errors::not_found("--plot needs gnuplot, which is not in PATH (", dirs,
                           "); install it (Debian: apt-get install gnuplot-nox)");
}

status write_history_csv(const training_history& h, const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return errors::internal("cannot write '", path, "'");
  out << "kind,step,epoch,loss,train_accuracy,test_accuracy\n";
  size_t e = 0;
  const auto epoch_rows_until = [&](int64_t step) {
    for (; e < h.epochs.size() && h.epochs[e].step <= step; ++e) {
      const auto& p = h.epochs[e];
      out << "epoch," << p.step << ',' << p.epoch << ',' << number(p.loss) << ','
          << number(p.train_accuracy) << ',' << number(p.test_accuracy) << '\n';
    }
  };
  for (const auto& p : h.steps) {
    epoch_rows_until(p.step - 1);
    out << "step," << p.step << ',' << p.epoch << ',' << number(p.loss) << ','
        << number(p.accuracy) << ",\n";
  }
  epoch_rows_until(INT64_MAX);
  out.flush();
  if (!out) return errors::internal("writing '", path, "' failed");
  return {};
}

status plot_history(const training_history& h, const std::string& gnuplot,
                    const std::string& png_path) {
  if (h.steps.empty()) return errors::failed_precondition("nothing to plot: no step was recorded");
  const fs::path script_path = fs::path(png_path).concat(".gnuplot");
  const fs::path log_path = fs::path(png_path).concat(".gnuplot.log");
  {
    std::ofstream out(script_path, std::ios::trunc);
    out << script(h, png_path);
    if (!out) return errors::internal("cannot write '", script_path.string(), "'");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const std::string script_arg = script_path.string();
  char* argv[] = {const_cast<char*>(gnuplot.c_str()), const_cast<char*>(script_arg.c_str()),
                  nullptr};
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return errors::internal("cannot start '", gnuplot, "': ", std::strerror(rc));
  int raw = 0;
  while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
  }
  const std::string log = read_text(log_path);
  std::error_code ec;
  fs::remove(log_path, ec);
  if (!WIFEXITED(raw) || WEXITSTATUS(raw) != 0)
    return errors::internal("gnuplot failed (", WIFEXITED(raw) ? "exit status " : "signal ",
                            WIFEXITED(raw) ? WEXITSTATUS(raw) : WTERMSIG(raw), ") on '",
                            script_arg, "': ", log);
  fs::remove(script_path, ec);
  return {};
}

}  // namespace caflow::train_app
