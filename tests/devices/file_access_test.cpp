// file_access: a server's file ops stay below the directories its options allow. Unit cases
// for the path check (links, "..", globs), then SaveV2 and RestoreV2 on a real one-task server:
// inside its root they work, outside it and on a server with no root they are refused with
// PERMISSION_DENIED naming the node and the path, and nothing is written.
#include <doctest/doctest.h>

#include <filesystem>

#include "actors/server/server.hpp"
#include "actors/session/session.hpp"
#include "devices/file_access.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/ir/checkpoint_file.hpp"
#include "net/cluster_spec.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/process.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::temp_dir;

namespace fs = std::filesystem;

TEST_CASE("paths below a root pass; others, '..' escapes and links out are refused") {
  temp_dir root("file_access_root_"), other("file_access_other_");
  const file_access a = file_access::below({root.path.string()});
  CHECK(a.restricted());
  CHECK(a.check(root.file("ckpt-1.shard-0-of-2")).ok());
  CHECK(a.check(root.file("sub/ckpt")).ok());                   // a directory not made yet
  CHECK(a.check(root.file("ckpt-1.shard-*-of-2")).ok());        // a RestoreV2 glob
  check_error(a.check(other.file("ckpt")), "is outside the directories this task allows");
  const status up = a.check(root.file("../" + other.path.filename().string() + "/ckpt"));
  CHECK(up.code() == error_code::permission_denied);
  fs::create_directory_symlink(other.path, root.path / "link");
  check_error(a.check(root.file("link/ckpt")), "is outside the directories this task allows");
  check_error(a.check(root.file("..")), "names a directory");
  check_error(file_access::below({}).check(root.file("x")),
              "this task allows no file access; start it with --checkpoint-root DIR");
  CHECK(file_access::anywhere().check("/etc/x").ok());
  CHECK_FALSE(file_access::anywhere().restricted());
}

namespace {

std::unique_ptr<server> one_task_server(std::vector<std::string> roots) {
  const int port = caflow::testing::free_ports(1).at(0);
  auto spec = cluster_spec::from_flag("ps=127.0.0.1:" + std::to_string(port));
  REQUIRE(spec.ok());
  auto srv = server::start({.cluster = *spec,
                            .job = "ps",
                            .task = 0,
                            .cpu = {.intra_op_threads = 1, .inter_op_threads = 1},
                            .file_roots = std::move(roots)});
  REQUIRE_MESSAGE(srv.ok(), srv.get_status().to_string());
  return std::move(*srv);
}

status save_to(server& srv, const std::string& path) {
  auto root = scope::new_root();
  auto prefix = ops::placeholder(root.with_op_name("prefix"), dtype::uint8);
  auto save = ops::save_v2(root.with_op_name("save"), prefix, {"w"}, {ops::constant(root, 1.0f)});
  session sess(root, {.target = srv.target()});
  return sess.run_targets({save}, {{prefix, checkpoint::path_tensor(path)}});
}

}  // namespace

TEST_CASE("a server's SaveV2 and RestoreV2 work below its root and nowhere else") {
  temp_dir allowed("file_access_allowed_"), outside("file_access_outside_");
  auto srv = one_task_server({allowed.path.string()});
  REQUIRE(save_to(*srv, allowed.file("ckpt")).ok());
  CHECK(fs::exists(allowed.file("ckpt")));

  const status refused = save_to(*srv, outside.file("ckpt"));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.code() == error_code::permission_denied);
  check_error(refused, "node 'save'");
  check_error(refused, outside.file("ckpt"));
  CHECK_FALSE(fs::exists(outside.file("ckpt")));

  auto root = scope::new_root();
  auto prefix = ops::placeholder(root.with_op_name("prefix"), dtype::uint8);
  auto w = ops::restore_v2(root.with_op_name("restore"), prefix, {"w"}, {dtype::float32});
  session sess(root, {.target = srv->target()});
  auto back = sess.run({{prefix, checkpoint::path_tensor(allowed.file("ckpt"))}}, {w[0]});
  REQUIRE_MESSAGE(back.ok(), back.get_status().to_string());
  CHECK(back->at(0).scalar_value<float>() == 1.0f);
  auto bad = sess.run({{prefix, checkpoint::path_tensor("/etc/passwd")}}, {w[0]});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.get_status().code() == error_code::permission_denied);
  check_error(bad.get_status(), "node 'restore'");
}

TEST_CASE("a server started without --checkpoint-root refuses every file op") {
  temp_dir dir("file_access_none_");
  auto srv = one_task_server({});
  const status refused = save_to(*srv, dir.file("ckpt"));
  CHECK(refused.code() == error_code::permission_denied);
  check_error(refused, "start it with --checkpoint-root DIR");
  CHECK_FALSE(fs::exists(dir.file("ckpt")));
}
