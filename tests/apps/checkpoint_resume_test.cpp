// caflow-train --checkpoint-dir as a process: SIGKILLed after it wrote a checkpoint, restarted,
// it resumes from the saved global step; with its newest checkpoint corrupted, it names the
// file and resumes from the previous one.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>

#include "test_util/process.hpp"
#include "test_util/train_app.hpp"

using namespace std::chrono_literals;
using caflow::testing::child_process;
using caflow::testing::exit_code;
using caflow::testing::have_fashion_mnist;
using caflow::testing::temp_dir;
namespace fs = std::filesystem;

namespace {

// 10000 training images in batches of 50: 200 steps per epoch, 2000 in all (a few seconds, so
// the kill lands mid-run); a checkpoint every 20 steps.
std::vector<std::string> train_args(const std::string& dir) {
  return {CAFLOW_TRAIN_BINARY, "--mode", "local", "--epochs", "10", "--train-limit", "10000",
          "--test-limit", "500", "--batch-size", "50", "--threads", "1", "--no-progress",
          "--checkpoint-dir", dir, "--checkpoint-every", "20"};
}

// The global step of "restored checkpoint <dir>/ckpt-<S>.index (global step S)", or -1.
long long restored_step(const std::string& output) {
  static const std::regex re(R"(restored checkpoint \S*/ckpt-(\d+)\.index \(global step (\d+)\))");
  std::smatch m;
  if (!std::regex_search(output, m, re) || m[1] != m[2]) return -1;
  return std::stoll(m[1]);
}

// Steps of every "saved checkpoint .../ckpt-<S>.index" line, in order.
std::vector<long long> saved_steps(const std::string& output) {
  static const std::regex re(R"(saved checkpoint \S*/ckpt-(\d+)\.index)");
  std::vector<long long> steps;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), re);
       it != std::sregex_iterator(); ++it)
    steps.push_back(std::stoll((*it)[1]));
  return steps;
}

}  // namespace

TEST_CASE("caflow-train resumes from its checkpoint after a SIGKILL, and skips a corrupt one") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_ckpt_resume_");
  const std::string ckpt = dir.path.string();

  // The first run is killed once its step-40 checkpoint exists.
  long long killed_after = -1;
  {
    child_process first(train_args(ckpt));
    REQUIRE_MESSAGE(first.wait_for_output("/ckpt-40.index", 120s), first.output());
    first.signal(SIGKILL);
    const int raw = first.wait_exit(10s);
    REQUIRE(raw >= 0);
    CHECK(WIFSIGNALED(raw));
    const auto saved = saved_steps(first.output());
    REQUIRE_FALSE(saved.empty());
    killed_after = saved.back();
    MESSAGE("first run, killed: ", first.output());
  }
  REQUIRE(killed_after >= 40);
  REQUIRE(killed_after < 2000);  // killed before the end, or the test proves nothing

  // The second resumes at a checkpoint at least as new as the last one reported (the kill may
  // land after a checkpoint's files are complete but before its line was printed).
  long long resumed = -1;
  {
    child_process second(train_args(ckpt));
    const int rc = exit_code(second, 180s);
    MESSAGE("second run: ", second.output());
    REQUIRE(rc == 0);
    resumed = restored_step(second.output());
    CHECK(resumed >= killed_after);
    CHECK(resumed < 2000);
    CHECK(second.output().find("resuming at epoch " + std::to_string(resumed / 200 + 1) + " step " +
                               std::to_string(resumed % 200) + " (" + std::to_string(resumed) +
                               " of 2000 steps done)") != std::string::npos);
    const auto saved = saved_steps(second.output());
    REQUIRE_FALSE(saved.empty());
    CHECK(saved.front() == resumed + 20);  // no step was done twice
    CHECK(saved.back() == 2000);
    CHECK(second.output().find("test accuracy:") != std::string::npos);
  }

  // Corrupt the newest checkpoint's shard: the third run names it and restores step 1980.
  const fs::path newest = dir.path / "ckpt-2000.shard-0-of-1";
  REQUIRE(fs::exists(newest));
  {
    std::fstream f(newest, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-5, std::ios::end);
    char c = 0;
    f.get(c);
    f.seekp(-5, std::ios::end);
    f.put(static_cast<char>(c ^ 0x40));
  }
  child_process third(train_args(ckpt));
  const int rc = exit_code(third, 180s);
  MESSAGE("third run: ", third.output());
  REQUIRE(rc == 0);
  CHECK(third.output().find("skipped a checkpoint") != std::string::npos);
  CHECK(third.output().find(newest.string()) != std::string::npos);
  CHECK(third.output().find("checksum mismatch") != std::string::npos);
  CHECK(restored_step(third.output()) == 1980);
  CHECK(saved_steps(third.output()) == std::vector<long long>{2000});
}
