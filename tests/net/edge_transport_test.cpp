// Which path a cut-edge value takes to another process (net/edge_transport.hpp): a task at
// another address gets every value from cross_host_bulk_bytes on its bulk socket, so CAF's
// connection (heartbeats, requests) never waits behind a big value on a real link; a task on
// loopback or at this task's own address keeps the bulk socket for values above
// edge_chunk_bytes, where the writer thread's hand-over pays off.
#include <doctest/doctest.h>

#include "net/cluster_spec.hpp"
#include "net/edge_transport.hpp"
#include "net/wire/wire_chunk.hpp"

using namespace caflow;

namespace {

bulk_endpoint at(const std::string& host) { return bulk_endpoint{host, 4242, "token", {}, {}, {}}; }

}  // namespace

TEST_CASE("values to a task at another address take its bulk socket from 64 kB") {
  auto t = edge_transport::start({.task = "/job:worker/replica:0/task:0", .bulk_host = "127.0.0.1"});
  REQUIRE(t);
  CHECK(t->route_to({}, at("10.1.2.3")).bulk_from == cross_host_bulk_bytes);
  CHECK(t->route_to({}, at("host-b.example")).bulk_from == cross_host_bulk_bytes);
  CHECK(t->route_to({}, at("127.0.0.1")).bulk_from == edge_chunk_bytes);
  CHECK(t->route_to({}, at("127.0.1.1")).bulk_from == edge_chunk_bytes);
  CHECK(t->route_to({}, at("localhost")).bulk_from == edge_chunk_bytes);
  CHECK(t->route_to({}, at("[::1]")).bulk_from == edge_chunk_bytes);
  CHECK(cross_host_bulk_bytes < edge_chunk_bytes);
}

TEST_CASE("a task at this task's own address counts as near") {
  // No bulk listener needed: the address alone decides.
  auto t = edge_transport::start({.task = "/job:ps/replica:0/task:0", .bulk_host = ""});
  REQUIRE(t);
  CHECK(t->route_to({}, at("")).bulk_from == edge_chunk_bytes);
  CHECK(t->route_to({}, at("10.0.0.7")).bulk_from == cross_host_bulk_bytes);
}

TEST_CASE("loopback hosts") {
  for (const char* h : {"127.0.0.1", "127.255.0.3", "localhost", "::1", "[::1]"}) {
    CAPTURE(h);
    CHECK(is_loopback_host(h));
  }
  for (const char* h : {"", "10.0.0.1", "128.0.0.1", "localhost.example", "::2", "1.127.0.0"}) {
    CAPTURE(h);
    CHECK_FALSE(is_loopback_host(h));
  }
}
