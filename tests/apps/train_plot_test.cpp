// caflow-train's output when stdout is a pipe (plain progress lines every ~10% of an epoch),
// and --plot FILE.png: the CSV's header and rows, the PNG's signature, and the clear error
// (CSV still written) when gnuplot is not in PATH.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util/process.hpp"
#include "test_util/train_app.hpp"

using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::exit_code;
using caflow::testing::have_fashion_mnist;
using caflow::testing::temp_dir;
namespace fs = std::filesystem;

namespace {

// 1000 images in batches of 50: 20 steps per epoch, 40 in all, so one point per step.
std::vector<std::string> train_args(std::vector<std::string> extra) {
  std::vector<std::string> args{CAFLOW_TRAIN_BINARY, "--mode", "local", "--epochs", "2",
                                "--train-limit", "1000", "--test-limit", "200",
                                "--batch-size", "50", "--threads", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<std::vector<std::string>> read_csv(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    rows.push_back(fields);
  }
  return rows;
}

bool gnuplot_installed() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((fs::path(d) / "gnuplot").c_str(), X_OK) == 0) return true;
  return false;
}

// The CSV of a 2-epoch, 20-steps-per-epoch run: one row per step, an epoch row after steps
// 20 and 40.
void check_csv(const fs::path& csv) {
  REQUIRE(fs::exists(csv));
  const auto rows = read_csv(csv);
  REQUIRE(rows.size() == 1 + 40 + 2);
  CHECK(rows[0] == std::vector<std::string>{"kind", "step", "epoch", "loss", "train_accuracy",
                                            "test_accuracy"});
  int step = 0, epochs = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    REQUIRE(r.size() == 6);
    const double loss = std::stod(r[3]), accuracy = std::stod(r[4]);
    CHECK(std::isfinite(loss));
    CHECK(loss > 0);
    CHECK(accuracy >= 0);
    CHECK(accuracy <= 1);
    if (r[0] == "step") {
      ++step;
      CHECK(r[1] == std::to_string(step));
      CHECK(r[2] == std::to_string((step - 1) / 20 + 1));
      CHECK(r[5].empty());
    } else {
      REQUIRE(r[0] == "epoch");
      ++epochs;
      CHECK(r[1] == std::to_string(20 * epochs));  // right after its last step's row
      CHECK(step == 20 * epochs);
      CHECK(r[2] == std::to_string(epochs));
      const double test = std::stod(r[5]);
      CHECK(test > 0.3);  // two epochs on 1000 images: well above chance (0.1)
      CHECK(test <= 1);
    }
  }
  CHECK(step == 40);
  CHECK(epochs == 2);
}

}  // namespace

TEST_CASE("caflow-train on a pipe prints a plain line every ~10% of an epoch and writes --plot") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_train_plot_");
  fs::create_directories(dir.path);
  const fs::path png = dir.path / "curves.png";
  child_process p(train_args({"--plot", png.string()}));
  const int rc = exit_code(p, 120s);
  const std::string& out = p.output();
  MESSAGE(out);
  REQUIRE(rc == 0);

  // 20 steps per epoch: lines at steps 2, 4, ..., 18 and the epoch's line at 20, each whole.
  for (int epoch = 1; epoch <= 2; ++epoch)
    for (int step = 2; step <= 20; step += 2)
      CHECK(out.find("epoch " + std::to_string(epoch) + "/2  step " + std::to_string(step) +
                     "/20  loss") != std::string::npos);
  CHECK(out.find("step 3/20") == std::string::npos);
  CHECK(out.find('\r') == std::string::npos);
  CHECK(out.find("\033[K") == std::string::npos);
  CHECK(out.find("step 20/20  loss") != std::string::npos);
  CHECK(out.find("test accuracy 0.") != std::string::npos);  // per epoch, with --plot

  check_csv(dir.path / "curves.csv");
  if (!gnuplot_installed()) {
    MESSAGE("PNG not checked: gnuplot is not installed (Debian: gnuplot-nox)");
    return;
  }
  std::ifstream in(png, std::ios::binary);
  char signature[8] = {};
  in.read(signature, 8);
  CHECK(std::string(signature, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(fs::file_size(png) > 1000);
}

TEST_CASE("--no-progress prints one line per epoch") {
  if (!have_fashion_mnist()) return;
  child_process p(train_args({"--no-progress"}));
  REQUIRE(exit_code(p, 120s) == 0);
  CHECK(p.output().find("epoch 1/2  step 20/20") != std::string::npos);
  CHECK(p.output().find("epoch 2/2  step 20/20") != std::string::npos);
  CHECK(p.output().find("step 2/20") == std::string::npos);
}

TEST_CASE("--plot without gnuplot: a clear error, the CSV still written, exit status 1") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_train_plot_");
  fs::create_directories(dir.path);
  const fs::path png = dir.path / "curves.png";
  // PATH is inherited by the child: point it at an empty directory for this one start.
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", dir.path.c_str(), 1);
  child_process p(train_args({"--no-progress", "--plot", png.string()}));
  ::setenv("PATH", saved.c_str(), 1);
  const int rc = exit_code(p, 120s);
  MESSAGE(p.output());
  CHECK(rc == 1);
  CHECK(p.output().find("--plot needs gnuplot, which is not in PATH") != std::string::npos);
  CHECK(p.output().find("apt-get install gnuplot-nox") != std::string::npos);
  check_csv(dir.path / "curves.csv");
  CHECK_FALSE(fs::exists(png));
}
