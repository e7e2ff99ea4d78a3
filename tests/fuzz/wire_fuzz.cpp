// Bytes from a peer, read into every wire message type (see wire_types.hpp): the first byte
// picks the type, or a whole caf::message as BASP reads one (type names and all), with the
// types of a process of the cluster. A value that is read must write and read back.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>

#include "fuzz/wire_types.hpp"

namespace {

struct wire_config : caf::actor_system_config {
  wire_config() {
    caflow::add_wire_types(*this);
    set("scheduler.max-threads", 1);
  }
};

// Started once per process and never destroyed: destroying an actor system during static
// destruction corrupts CAF 0.17's heap. Every caflow type it registers must be one the target
// reads.
caf::actor_system& system_once() {
  static auto* cfg = new wire_config;
  static auto* sys = new caf::actor_system{*cfg};
  static const bool checked = [] {
    for (const auto& [name, factory] : cfg->value_factories_by_name) {
      if (name.rfind("caflow::", 0) != 0) continue;
      bool known = false;
      for (const auto& t : caflow::fuzz::wire_types()) known = known || name == t.name;
      if (!known) {
        std::fprintf(stderr, "add_wire_types registers %s, which tests/fuzz/wire_types.hpp lacks\n",
                     name.c_str());
        std::abort();
      }
    }
    return true;
  }();
  (void)checked;
  return *sys;
}

void read_message(caf::actor_system& sys, std::span<const char> bytes) {
  caf::message msg;
  caf::binary_deserializer source{sys, bytes.data(), bytes.size()};
  if (source(msg)) return;
  (void)caf::to_string(msg);
  // Not written back when CAF 0.17 could not write it (see writes_infinity).
  for (size_t i = 0; i < msg.size(); ++i) {
    if (msg.match_element<caflow::master_snapshot>(i) &&
        caflow::fuzz::writes_infinity(msg.get_as<caflow::master_snapshot>(i)))
      return;
    if (msg.match_element<float>(i) && std::isinf(msg.get_as<float>(i))) return;
    if (msg.match_element<double>(i) && std::isinf(msg.get_as<double>(i))) return;
  }
  auto again = caflow::fuzz::encode(sys, msg);
  caf::message back;
  caf::binary_deserializer reread{sys, again};
  if (auto err = reread(back)) {
    std::fprintf(stderr, "cannot read back a message just written: %s\n",
                 caf::to_string(err).c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  auto& sys = system_once();
  const std::span<const char> rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto& types = caflow::fuzz::wire_types();
  if (data[0] < types.size())
    types[data[0]].round_trip(sys, rest);
  else if (data[0] == caflow::fuzz::message_selector())
    read_message(sys, rest);
  return 0;
}
