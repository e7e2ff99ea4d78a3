// caflow-train whose checkpoint disk fills: each refused checkpoint is a line naming the file and
// "No space left on device", training goes on to its end, and the last complete checkpoint stays
// restorable. The disk is a 6 MB tmpfs (two of the MLP's 2.9 MB checkpoints) in a mount namespace
// made by unshare(1); where that cannot be made (no root), the test says so and passes.
#include <doctest/doctest.h>

#include <filesystem>

#include "test_util/temp_dir.hpp"
#include "test_util/train_app.hpp"

using namespace caflow::testing;
using namespace std::chrono_literals;

TEST_CASE("a full checkpoint disk is a line per refused checkpoint; training finishes") {
  if (!have_fashion_mnist()) return;
  temp_dir dir("caflow_train_full_disk_");
  const std::string d = dir.path.string();
  {
    child_process probe({"/usr/bin/unshare", "-m", "/bin/sh", "-c", "mount -t tmpfs -o size=64k tmpfs " + d});
    if (exit_code(probe, 30s) != 0) {
      MESSAGE("skipped: cannot mount a tmpfs in a mount namespace here (" << probe.output() << ")");
      return;
    }
  }
  child_process p({"/usr/bin/unshare", "-m", "/bin/sh", "-c",
                   "mount -t tmpfs -o size=6000k tmpfs " + d + " && exec " + CAFLOW_TRAIN_BINARY +
                       " --mode local --model mlp --epochs 1 --checkpoint-dir " + d +
                       " --checkpoint-every 100"});
  REQUIRE(exit_code(p, 240s) == 0);
  const std::string& out = p.output();
  MESSAGE(out);
  CHECK(out.find("caflow-train: saved checkpoint " + d + "/ckpt-200.index") != std::string::npos);
  CHECK(out.find("caflow-train: checkpoint at step 300 not written: RESOURCE_EXHAUSTED:") != std::string::npos);
  CHECK(out.find("ckpt-300.shard-0-of-1.tmp-") != std::string::npos);  // the file it was writing
  CHECK(out.find("No space left on device") != std::string::npos);
  CHECK(out.find("test accuracy: ") != std::string::npos);  // training went on to its end
}
