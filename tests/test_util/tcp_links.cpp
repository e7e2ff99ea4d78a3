#include "test_util/tcp_links.hpp"

#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace caflow::testing {
namespace {

// The inodes of `pid`'s sockets.
std::set<unsigned long> socket_inodes(pid_t pid) {
  std::set<unsigned long> inodes;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return inodes;
  while (dirent* e = ::readdir(d)) {
    char target[256];
    const std::string link = dir + "/" + e->d_name;
    const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    unsigned long inode = 0;
    if (std::sscanf(target, "socket:[%lu]", &inode) == 1) inodes.insert(inode);
  }
  ::closedir(d);
  return inodes;
}

// Established connections as (local "addr:port", remote "addr:port") by socket inode, from
// /proc/net/tcp and tcp6 (hex fields, as the kernel writes them).
std::map<unsigned long, std::pair<std::string, std::string>> established() {
  std::map<unsigned long, std::pair<std::string, std::string>> out;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout;
      unsigned long inode = 0;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      if (state == "01" && inode != 0) out[inode] = {local, remote};
    }
  }
  return out;
}

}  // namespace

std::set<pid_t> tcp_peers(pid_t pid, const std::vector<pid_t>& others) {
  const auto table = established();
  std::set<std::pair<std::string, std::string>> mine;
  for (unsigned long inode : socket_inodes(pid))
    if (auto c = table.find(inode); c != table.end()) mine.insert(c->second);
  std::set<pid_t> peers;
  for (pid_t other : others) {
    if (other == pid) continue;
    for (unsigned long inode : socket_inodes(other)) {
      auto c = table.find(inode);
      if (c != table.end() && mine.count({c->second.second, c->second.first})) {
        peers.insert(other);
        break;
      }
    }
  }
  return peers;
}

}  // namespace caflow::testing
