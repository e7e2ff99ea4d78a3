// Tensors bigger than one message (max_wire_tensor_bytes) crossing a process boundary in
// chunks of edge_chunk_bytes or over the workers' bulk channel, and a rendezvous actor refusing
// forged chunk sequences.
//
//   task 1 (actor system B)   y = Range(0, 2^24) * s   (float32[16777216], 64 MiB)
//                                      │ cut edge, chunked or bulk, over loopback
//   task 0 (actor system A)   out = Identity(y)        fetched
//
// Every element of y is k * s with s a power of two, so it is exact and a chunk placed at the
// wrong offset shows up as a wrong element.
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <chrono>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/rendezvous/rendezvous_actor.hpp"
#include "actors/worker/worker.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/core/device_name.hpp"
#include "graph/ir/partition.hpp"
#include "graph/ir/placer.hpp"
#include "graph/ir/prune.hpp"
#include "graph/ir/serialization.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/framework/local_rendezvous.hpp"
#include "net/errors.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/recv_future.hpp"
#include "test_util/two_task_master.hpp"

using namespace caflow;
using caflow::testing::check_error;
using namespace caflow::testing::two_tasks;

namespace {

constexpr int64_t big_n = int64_t{1} << 24;  // 16M float32: 64 MiB

// Stops a worker however the test case ends, so a failed REQUIRE never leaves its actor system
// waiting for it forever.
struct stop_on_exit {
  worker_actor worker;
  ~stop_on_exit() { caf::anon_send_exit(worker, caf::exit_reason::user_shutdown); }
};

// The first element that is not k * scale, or -1.
int64_t first_wrong(const tensor& t, float scale) {
  const float* p = static_cast<const float*>(t.raw_data());
  for (int64_t k = 0; k < t.num_elements(); ++k)
    if (p[k] != static_cast<float>(k) * scale) return k;
  return -1;
}

// A forged chunk of the tensor float32[1024] (4096 bytes) of edge "k", step `step`.
edge_chunk chunk(int64_t step, uint64_t offset, size_t size, std::vector<int64_t> dims = {1024},
                 uint64_t total = 4096, uint8_t type = static_cast<uint8_t>(dtype::float32)) {
  edge_chunk c;
  c.step_id = step;
  c.key = "k";
  c.type = type;
  c.dims = std::move(dims);
  c.total_bytes = total;
  c.offset = offset;
  c.bytes.resize(size);
  for (size_t i = 0; i < size; ++i) c.bytes[i] = static_cast<char>((offset + i) * 7);
  c.size = size;
  return c;
}

// One rendezvous actor of edge "k" over a local rendezvous, fed forged chunks.
struct forged_edge {
  test_config cfg;
  caf::actor_system sys{cfg};
  std::shared_ptr<local_rendezvous> local = std::make_shared<local_rendezvous>();
  std::shared_ptr<finished_steps> finished = std::make_shared<finished_steps>();
  rendezvous_actor endpoint = spawn_rendezvous_actor(sys, "k", local, finished, nullptr, 2);

  ~forged_edge() { caf::anon_send_exit(endpoint, caf::exit_reason::user_shutdown); }

  // What the step's _Recv gets once `chunks` have been pushed.
  status_or<tensor> receive(int64_t step, const std::vector<edge_chunk>& chunks) {
    auto got = testing::recv_future(*local, "k", step);
    for (const edge_chunk& c : chunks) caf::anon_send(endpoint, cf_chunk_atom::value, c);
    return testing::await_recv(got, step);
  }
};

}  // namespace

TEST_CASE("a 64 MiB cut edge between two actor systems arrives intact, step after step") {
  REQUIRE(big_n * sizeof(float) > max_wire_tensor_bytes);
  worker_options o0 = options(0, 4), o1 = options(1, 4);
  // Which buffer the received tensor lives in tells the way it came.
  std::string arrived_in;
  SUBCASE("through the middleman, in chunks") { arrived_in = "caflow.chunk_assembly"; }
  SUBCASE("over the workers' bulk channel") {
    o0.bulk_host = o1.bulk_host = "127.0.0.1";
    arrived_in = "caflow.bulk_receiver";
  }
  test_config cfg_a, cfg_b;
  caf::actor_system sys_a{cfg_a}, sys_b{cfg_b};
  stop_on_exit w0{spawn_worker(sys_a, o0)};
  stop_on_exit w1_home{spawn_worker(sys_b, o1)};
  {
    worker_actor w1 = reach_over_loopback(sys_b, w1_home.worker, sys_a);
    hand_master master(sys_a, {w0.worker, w1}, std::chrono::seconds(20));

    auto root = scope::new_root();
    auto w1s = root.with_device("/job:worker/task:1");
    auto s = ops::placeholder(w1s.with_op_name("s"), dtype::float32);
    auto r = ops::range(w1s, ops::constant(w1s, 0.0f), ops::constant(w1s, float(big_n)),
                        ops::constant(w1s, 1.0f));
    auto y = ops::mul(w1s.with_op_name("y"), r, s);
    auto out = ops::identity(root.with_op_name("out"), y);
    const auto handles =
        master.install(make_plan(root, {.feeds = {"s"}, .fetches = {"out"}, .targets = {}}));

    const float scales[] = {1.0f, -2.0f, 0.5f, 4.0f};
    for (int64_t i = 0; i < 4; ++i) {
      CAPTURE(i);
      auto fetched = master.step(handles, 100 + i, {tensor::scalar(scales[i])}, 1);
      REQUIRE_MESSAGE(fetched.ok(), fetched.get_status().to_string());
      const tensor& got = fetched->at(0);
      REQUIRE(got.type() == dtype::float32);
      REQUIRE(got.shape() == tensor_shape{big_n});
      CHECK(first_wrong(got, scales[i]) == -1);
      // Passed on by Identity and the in-process reply without a copy.
      CHECK(std::string(got.buf()->owner().name()) == arrived_in);
      master.cleanup(100 + i);
    }
  }
}

TEST_CASE("make_chunks: pieces of edge_chunk_bytes sharing the tensor, the last one shorter") {
  const tensor t = tensor::filled<float>(tensor_shape{2, (1 << 20) + 3}, 1.5f);  // 8 MiB + 24
  const auto chunks = make_chunks(7, "k", t);
  REQUIRE(chunks.size() == 3);
  CHECK(chunks[0].offset == 0);
  CHECK(chunks[1].offset == edge_chunk_bytes);
  CHECK(chunks[2].offset == 2 * edge_chunk_bytes);
  CHECK(chunks[2].payload().size() == 24);
  for (const edge_chunk& c : chunks) {
    CHECK(c.total_bytes == t.byte_size());
    CHECK(c.dims == std::vector<int64_t>{2, (1 << 20) + 3});
    CHECK(c.source.shares_buffer_with(t));
    CHECK(check_chunk(c).ok());
  }
}

TEST_CASE("forged chunks: a good sequence is assembled, bad ones abort the step naming the edge") {
  forged_edge e;
  SUBCASE("four chunks in order make the tensor") {
    auto got = e.receive(
        1, {chunk(1, 0, 1024), chunk(1, 1024, 1024), chunk(1, 2048, 1024), chunk(1, 3072, 1024)});
    REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
    REQUIRE(got->shape() == tensor_shape{1024});
    const char* p = static_cast<const char*>(got->raw_data());
    bool intact = true;
    for (size_t i = 0; i < 4096; ++i) intact = intact && p[i] == static_cast<char>(i * 7);
    CHECK(intact);
  }
  SUBCASE("a gap") {
    auto got = e.receive(2, {chunk(2, 0, 1024), chunk(2, 2048, 1024)});
    check_error(got,
                "edge 'k': a chunk of step 2 starts at byte 2048 but 1024 bytes have "
                "arrived: it leaves a gap");
  }
  SUBCASE("an overlap") {
    auto got = e.receive(3, {chunk(3, 0, 1024), chunk(3, 512, 1024)});
    check_error(got,
                "edge 'k': a chunk of step 3 starts at byte 512 but 1024 bytes have "
                "arrived: it overlaps them");
  }
  SUBCASE("a first chunk that does not start at 0") {
    check_error(e.receive(4, {chunk(4, 1024, 1024)}),
                "edge 'k': the first chunk of step 4 starts at byte 1024, not at 0");
  }
  SUBCASE("too many bytes") {
    auto got = e.receive(5, {chunk(5, 0, 3072), chunk(5, 3072, 2048)});
    check_error(got,
                "edge 'k': a chunk of step 5 carries bytes 3072..5120 of a tensor of only "
                "4096 bytes");
  }
  SUBCASE("an absurd total is refused before anything is allocated") {
    auto got = e.receive(6, {chunk(6, 0, 1024, {int64_t{1} << 40}, uint64_t{4} << 40)});
    REQUIRE_FALSE(got.ok());
    CHECK(got.get_status().code() == error_code::resource_exhausted);
    check_error(got,
                "edge 'k': a chunk of step 6 announces float32[1099511627776], more than "
                "the 17179869184 bytes");
  }
  SUBCASE("a byte count that does not match the shape") {
    check_error(e.receive(7, {chunk(7, 0, 64, {1024}, 100)}),
                "edge 'k': a chunk of step 7 announces float32[1024] as 100 bytes, not 4096");
  }
  SUBCASE("an invalid dtype, a bad shape, an empty chunk") {
    check_error(e.receive(8, {chunk(8, 0, 64, {16}, 64, 200)}),
                "edge 'k': a chunk of step 8 announces the invalid dtype 200");
    check_error(e.receive(9, {chunk(9, 0, 64, {-16}, 64)}),
                "edge 'k': a chunk of step 9 announces a bad shape");
    check_error(e.receive(10, {chunk(10, 0, 0)}),
                "edge 'k': a chunk of step 10 at offset 0 carries no bytes");
  }
  SUBCASE("a later chunk announcing another tensor") {
    auto got = e.receive(11, {chunk(11, 0, 1024), chunk(11, 1024, 1024, {2, 512})});
    check_error(got,
                "edge 'k': a chunk of step 11 announces another tensor than the first "
                "chunk did (float32[1024])");
  }
  SUBCASE("a refused transfer drops its remaining chunks; the edge keeps serving") {
    auto bad = e.receive(12, {chunk(12, 0, 1024), chunk(12, 2048, 1024), chunk(12, 3072, 1024),
                              chunk(12, 1024, 1024)});
    check_error(bad, "leaves a gap");
    caf::anon_send(e.endpoint, cf_cleanup_atom::value, int64_t{12});
    auto good = e.receive(13, {chunk(13, 0, 2048), chunk(13, 2048, 2048)});
    REQUIRE_MESSAGE(good.ok(), good.get_status().to_string());
    CHECK(good->byte_size() == 4096);
  }
}

TEST_CASE("chunk_sinks: only the chunk that continues a registered tensor in order is read in") {
  auto& sinks = chunk_sinks::global();
  const tensor target(dtype::float32, tensor_shape{1024});
  sinks.put("sink_edge", 5, target, 1024);
  auto header = [](uint64_t offset, std::vector<int64_t> dims = {1024}) {
    edge_chunk c = chunk(5, offset, 0, std::move(dims));
    c.key = "sink_edge";
    return c;
  };
  CHECK_FALSE(sinks.claim(header(2048), 1024).initialized());            // a gap
  CHECK_FALSE(sinks.claim(header(0), 1024).initialized());               // already filled
  CHECK_FALSE(sinks.claim(header(1024, {2, 512}), 1024).initialized());  // another tensor
  CHECK_FALSE(sinks.claim(header(1024), 4096).initialized());            // past the end
  const tensor got = sinks.claim(header(1024), 1024);
  CHECK(got.shares_buffer_with(target));
  CHECK_FALSE(sinks.claim(header(1024), 1024).initialized());  // the same range twice
  sinks.advance("sink_edge", 5, 1024, 2048);                   // claimed already: no effect
  CHECK_FALSE(sinks.claim(header(3072), 1024).initialized());
  sinks.advance("sink_edge", 5, 2048, 3072);  // the receiver copied a chunk itself
  CHECK(sinks.claim(header(3072), 1024).shares_buffer_with(target));
  sinks.remove("sink_edge", 5);
  CHECK_FALSE(sinks.claim(header(4096), 0).initialized());
}
