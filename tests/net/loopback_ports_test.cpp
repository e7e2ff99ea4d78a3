// Ports for a cluster's tasks on this host (net/loopback_ports.hpp): they come from below the
// kernel's ephemeral range, so no outgoing connection takes one before its task binds it, and
// each is free when handed out.
#include <doctest/doctest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "net/loopback_ports.hpp"

using namespace caflow;

namespace {

std::string range_file(const std::string& text) {
  char name[] = "/tmp/caflow_port_range_XXXXXX";
  const int fd = ::mkstemp(name);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(name) << text;
  return name;
}

// A socket bound to 127.0.0.1:port, or -1 when the port is taken.
int bind_port(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
  ::close(fd);
  return -1;
}

}  // namespace

TEST_CASE("the ephemeral range is read from its file, Linux's default when unreadable") {
  const std::string good = range_file("40000\t50000\n");
  CHECK(ephemeral_port_range(good.c_str()) == std::pair{40000, 50000});
  const std::string bad = range_file("50000 40000\n");  // first above last
  CHECK(ephemeral_port_range(bad.c_str()) == std::pair{32768, 60999});
  const std::string junk = range_file("lots\n");
  CHECK(ephemeral_port_range(junk.c_str()) == std::pair{32768, 60999});
  CHECK(ephemeral_port_range("/nonexistent/ip_local_port_range") == std::pair{32768, 60999});
  for (const auto& f : {good, bad, junk}) std::remove(f.c_str());
}

TEST_CASE("the pool lies below the ephemeral range, else above it, never in it") {
  CHECK(loopback_port_pool({32768, 60999}) == std::pair{16384, 32767});
  CHECK(loopback_port_pool({10000, 60999}) == std::pair{1024, 9999});   // not privileged ports
  CHECK(loopback_port_pool({2000, 50000}) == std::pair{50001, 65535});  // too few below
  CHECK(loopback_port_pool({1500, 65000}).first > loopback_port_pool({1500, 65000}).second);
}

TEST_CASE("free ports are distinct, outside the ephemeral range and free until bound") {
  const auto [low, high] = loopback_port_pool(ephemeral_port_range());
  auto first = free_loopback_ports(6);
  REQUIRE_MESSAGE(first.ok(), first.get_status().to_string());
  REQUIRE(first->size() == 6);
  CHECK(std::set<int>(first->begin(), first->end()).size() == 6);
  std::vector<int> held;
  for (int port : *first) {
    CHECK(port >= low);
    CHECK(port <= high);
    const int fd = bind_port(port);
    CHECK(fd >= 0);
    held.push_back(fd);
  }
  // While the first ones are taken, a second call never hands them out again.
  auto second = free_loopback_ports(200);
  REQUIRE(second.ok());
  for (int port : *second)
    CHECK(std::find(first->begin(), first->end(), port) == first->end());
  for (int fd : held) ::close(fd);
}
