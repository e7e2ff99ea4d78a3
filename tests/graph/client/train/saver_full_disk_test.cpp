// A checkpoint into a disk that fills: the save fails naming the file and "No space left on
// device", nothing partial is left, the newest complete checkpoint stays and restores, and once
// space comes back the next checkpoint succeeds. The disk is a 192 KiB tmpfs mounted in a mount
// namespace of this process (it must still be single-threaded: this is its only test); without
// root that cannot be made, and RLIMIT_FSIZE refuses the writes instead ("File too large").
#include <doctest/doctest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include <filesystem>
#include <numeric>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/saver.hpp"
#include "graph/client/train/variables.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
namespace fs = std::filesystem;

namespace {

// A 192 KiB tmpfs at `dir`, private to this process; false when it cannot be made.
bool mount_small_disk(const std::string& dir) {
  if (::unshare(CLONE_NEWNS) != 0) return false;
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  return ::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=192k") == 0;
}

std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp") != std::string::npos) out.push_back(e.path().string());
  return out;
}

}  // namespace

TEST_CASE("a full disk fails one checkpoint, keeps the last complete one, and the next succeeds") {
  caflow::testing::temp_dir dir("caflow_full_disk_");
  const bool tmpfs = mount_small_disk(dir.path.string());
  rlimit saved{};
  ::getrlimit(RLIMIT_FSIZE, &saved);
  if (!tmpfs) MESSAGE("no tmpfs (needs root): RLIMIT_FSIZE stands in for the full disk");

  // w: 16 Ki floats, 64 KiB a checkpoint: two fit in 192 KiB, a third does not.
  auto root = scope::new_root();
  auto w = train::create_variable(root, "w", ops::constant(root, tensor(dtype::float32, tensor_shape{16384})));
  auto value = ops::placeholder(root.with_op_name("value"), dtype::float32, {.shape = {16384}});
  auto set = ops::assign(root.with_op_name("set"), w, value);
  train::saver saver(root, train::variable_set{w});
  REQUIRE_MESSAGE(root.ok(), root.get_status().to_string());
  session sess(root);
  const auto set_to = [&](float v) {
    REQUIRE(sess.run({{value, tensor::filled<float>({16384}, v)}}, {set}).ok());
  };
  const std::string d = dir.path.string();
  set_to(1);
  REQUIRE(saver.save(sess, d, 10).ok());
  set_to(2);
  REQUIRE(saver.save(sess, d, 20).ok());
  set_to(3);
  if (!tmpfs) {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit small = saved;
    small.rlim_cur = 32 << 10;  // smaller than a shard
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  }
  auto full = saver.save(sess, d, 30);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  REQUIRE_FALSE(full.ok());
  MESSAGE(full.get_status().to_string());
  CHECK(full.get_status().message().find(d + "/ckpt-30.shard-0-of-1") != std::string::npos);
  CHECK(full.get_status().message().find(tmpfs ? "No space left on device" : "File too large") !=
        std::string::npos);
  if (tmpfs) CHECK(full.get_status().code() == error_code::resource_exhausted);
  CHECK(leftovers(d).empty());  // no partial file a restore could pick
  CHECK(train::saver::checkpoint_steps(d) == std::vector<int64_t>{20, 10});

  // Training goes on; the newest complete checkpoint restores.
  set_to(4);
  auto restored = saver.restore_latest(sess, d);
  REQUIRE_MESSAGE(restored.ok(), restored.get_status().to_string());
  CHECK(restored->step == 20);
  auto got = sess.run({w.ref});
  REQUIRE(got.ok());
  CHECK(got->at(0).data<float>()[123] == 2.0f);

  // Space comes back (the oldest checkpoint goes): the next one succeeds.
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().filename().string().starts_with("ckpt-10.")) fs::remove(e.path());
  set_to(5);
  auto next = saver.save(sess, d, 30);
  REQUIRE_MESSAGE(next.ok(), next.get_status().to_string());
  CHECK(train::saver::checkpoint_steps(d) == std::vector<int64_t>{30, 20});
  if (tmpfs) ::umount(d.c_str());
}
