// A synchronous backup worker that comes only after the run's last update (2 of 3 gradients per
// update, the chief and worker 1 made every update): its first-token wait finds the token queue
// closed, which ends its run with no step instead of an error.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "apps/train/embedded_cluster.hpp"
#include "apps/train/replication.hpp"
#include "apps/train/trainer.hpp"
#include "graph/client/data/fashion_mnist.hpp"
#include "test_util/train_app.hpp"

using namespace caflow;
using namespace caflow::train_app;

TEST_CASE("a sync backup worker that comes after the last update ends without a step") {
  if (!testing::have_fashion_mnist()) return;
  auto train = data::load_fashion_mnist(data::fashion_mnist_split::train);
  auto test = data::load_fashion_mnist(data::fashion_mnist_split::test);
  REQUIRE_MESSAGE(train.ok(), train.get_status().to_string());
  REQUIRE_MESSAGE(test.ok(), test.get_status().to_string());
  auto few = train->take(600);
  auto test_few = test->take(100);
  REQUIRE(few.ok());
  REQUIRE(test_few.ok());

  constexpr int workers = 3;
  auto cluster = embedded_cluster::start(
      {.ps_tasks = 1, .worker_tasks = workers, .cpu = {.intra_op_threads = 1, .inter_op_threads = 1}});
  REQUIRE_MESSAGE(cluster.ok(), cluster.get_status().to_string());
  train_options o;
  o.model = model_kind::mlp;
  o.mode = replication::sync;
  o.epochs = 1;
  o.batch_size = 50;
  o.replicas_to_aggregate = 2;
  o.total_replicas = workers;
  o.progress = false;

  auto run = [&](int w) {
    const client_plan plan{.mode = o.mode, .ps_tasks = 1, .workers = workers, .worker_index = w};
    auto graph = build_client_graph(o, plan);
    REQUIRE_MESSAGE(graph.ok(), graph.get_status().to_string());
    return run_client(o, plan, **graph, (*cluster)->worker_target(w),
                      {*few->shard(w, workers)}, *test_few, false);
  };
  // The chief and worker 1 make every update of the run; the chief then closes the queue.
  status_or<client_result> chief = errors::internal("not run"), first = chief;
  std::thread t1([&] { first = run(1); });
  chief = run(0);
  t1.join();
  REQUIRE_MESSAGE(chief.ok(), chief.get_status().to_string());
  REQUIRE_MESSAGE(first.ok(), first.get_status().to_string());
  CHECK(chief->steps > 0);
  CHECK(chief->test_accuracy > 0);

  const status_or<client_result> late = run(2);
  REQUIRE_MESSAGE(late.ok(), late.get_status().to_string());
  CHECK(late->steps == 0);
  CHECK(late->test_accuracy < 0);  // only the chief evaluates
}
