#include "net/loopback_ports.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>

namespace caflow {
namespace {

constexpr int pool_size = 16384;
constexpr int min_pool = 1024;
constexpr int first_unprivileged = 1024;

// A socket bound to 127.0.0.1:port (0: the kernel's choice), or -1.
int bound_socket(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int port_of(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return -1;
  return ntohs(addr.sin_port);
}

}  // namespace

std::pair<int, int> ephemeral_port_range(const char* file) {
  std::ifstream in(file);
  int first = 0, last = 0;
  if (in >> first >> last && 0 < first && first <= last && last <= 65535) return {first, last};
  return {32768, 60999};
}

std::pair<int, int> loopback_port_pool(std::pair<int, int> ephemeral) {
  const auto [first, last] = ephemeral;
  if (first - first_unprivileged >= min_pool)
    return {std::max(first_unprivileged, first - pool_size), first - 1};
  if (65535 - last >= min_pool) return {last + 1, std::min(65535, last + pool_size)};
  return {0, -1};
}

status_or<std::vector<int>> free_loopback_ports(int n) {
  const auto [low, high] = loopback_port_pool(ephemeral_port_range());
  std::vector<int> fds, ports;
  if (low <= high) {
    const int size = high - low + 1;
    std::random_device seed;
    const int start = static_cast<int>(std::uniform_int_distribution<int>(0, size - 1)(seed));
    for (int i = 0; i < size && static_cast<int>(ports.size()) < n; ++i) {
      const int port = low + (start + i) % size;
      const int fd = bound_socket(port);
      if (fd < 0) continue;
      fds.push_back(fd);
      ports.push_back(port);
    }
  } else {
    while (static_cast<int>(ports.size()) < n) {
      const int fd = bound_socket(0);
      if (fd < 0) break;
      fds.push_back(fd);
      const int port = port_of(fd);
      if (port < 0) break;
      ports.push_back(port);
    }
  }
  // Open until every port is chosen, so they differ.
  for (int fd : fds) ::close(fd);
  if (static_cast<int>(ports.size()) < n)
    return errors::unavailable("cannot find ", n, " free ports on 127.0.0.1 (found ",
                               ports.size(), ")");
  return ports;
}

}  // namespace caflow
