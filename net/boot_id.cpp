#include "net/boot_id.hpp"

#include <fstream>

namespace caflow {
namespace {

std::string read_boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return in ? id : std::string{};
}

}  // namespace

const std::string& this_boot_id() {
  // Read once: it cannot change while the process runs.
  static const std::string id = read_boot_id();
  return id;
}

}  // namespace caflow
