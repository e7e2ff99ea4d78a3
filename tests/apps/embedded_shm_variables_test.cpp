// An embedded cluster with embedded_options::shm_variables: its ps keeps a variable its worker
// reads in the shared memory segment, where the device's allocator does not count it (the
// console's `devices`); without the option the variable stays on the ps's heap. Either way the
// worker reads the ps's updates.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "actors/session/session.hpp"
#include "apps/console/admin_client.hpp"
#include "apps/train/embedded_cluster.hpp"
#include "graph/client/ops/ops.hpp"
#include "test_util/three_process_cluster.hpp"

using namespace caflow;
using namespace std::chrono_literals;

namespace {

constexpr int64_t n = int64_t{1} << 20;  // 4 MiB of floats

output ones(const scope& s) {
  return ops::fill(s, ops::constant(s, std::vector<int64_t>{n}, tensor_shape{1}),
                   ops::constant(s, 1.0f));
}

// The ps's CPU memory in use, in MiB, after a worker read its variable and the ps updated it.
double ps_heap_mib_after_update(bool shm_variables) {
  auto cluster = train_app::embedded_cluster::start(
      {.ps_tasks = 1, .worker_tasks = 1, .shm_variables = shm_variables});
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  auto root = scope::new_root();
  auto ps = root.with_device("/job:ps/task:0");
  auto worker = root.with_device("/job:worker/task:0");
  auto v = ops::variable(ps.with_op_name("v"), partial_shape{n}, dtype::float32);
  auto init = ops::assign(ps.with_op_name("init"), v, ones(ps));
  auto total = ops::sum(worker.with_op_name("total"), ops::identity(ps, v), std::vector<int>{0});
  auto bump = ops::assign_add(ps.with_op_name("bump"), v, ones(ps));
  session sess(root, testing::remote((*cluster)->worker_target(0)));
  REQUIRE(sess.run({init}).ok());
  // The first read brings the link up; the update after it moves the variable where the ps
  // keeps variables; the last read sees the update.
  for (int k = 1; k <= 2; ++k) {
    auto got = sess.run({total});
    REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
    CHECK(got->at(0).scalar_value<float>() == float(n * k));
    REQUIRE(sess.run({}, {}, {operation{bump.node, {}}}).ok());
  }
  auto address = (*cluster)->spec().task_address("ps", 0);
  REQUIRE(address.ok());
  auto admin = console::admin_client::connect(*address, 10s);
  REQUIRE_MESSAGE(admin.ok(), admin.get_status().to_string());
  auto devices = (*admin)->ask({"devices"}, 10s);
  REQUIRE_MESSAGE(devices.ok(), devices.get_status().to_string());
  for (const auto& row : devices->table.rows) {
    if (row.at(1).find("CPU:0") == std::string::npos) continue;
    const std::string& in_use = row.at(2);  // "4.0 MiB", "312.5 KiB", "64 B"
    const double value = std::stod(in_use);
    if (in_use.ends_with(" MiB")) return value;
    if (in_use.ends_with(" KiB")) return value / 1024;
    if (in_use.ends_with(" B")) return value / (1024 * 1024);
    FAIL("unexpected size: ", in_use);
  }
  FAIL("no CPU row in the ps's devices");
  return -1;
}

}  // namespace

TEST_CASE("with shm_variables the ps's variable leaves its heap for the shared segment") {
  const double heap = ps_heap_mib_after_update(false);
  const double shared = ps_heap_mib_after_update(true);
  MESSAGE(heap, " MiB without, ", shared, " MiB with");
  // The same graph's other buffers (its two folded 4 MiB constants) stay on the heap.
  CHECK(heap >= 12.0);
  CHECK(heap - shared >= 4.0);
}
