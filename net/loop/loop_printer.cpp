#include "net/loop/loop_printer.hpp"

#include <caf/actor_ostream.hpp>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/group_manager.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

namespace caflow {
namespace {

using sink = std::function<void(std::string&&)>;

struct printer_state {
  // Per actor: its line so far and, if redirected, where its lines go.
  struct line {
    std::string text;
    sink to;
  };
  std::unordered_map<caf::actor_id, line> lines;
  std::map<std::string, sink> sinks;  // by file or group name; shared by whoever names it
  sink everyone;                      // the global redirect
  static inline const char* name = "caflow_printer";
};

using printer = caf::stateful_actor<printer_state>;

// A name starting with ':' is a local group, as in CAF; anything else a file, appended to with
// actor_ostream::append. A file that cannot be opened is said on stderr, and lines stay on stdout.
sink sink_for(printer* self, const std::string& name, int flags) {
  if (name.empty()) return nullptr;
  auto& known = self->state.sinks[name];
  if (known) return known;
  if (name.front() == ':') {
    auto group = self->home_system().groups().get_local(name);
    known = [group, name](std::string&& text) { caf::anon_send(group, name, std::move(text)); };
  } else {
    auto file = std::make_shared<std::ofstream>(
        name, (flags & caf::actor_ostream::append) != 0 ? std::ios::app : std::ios::out);
    if (!file->is_open()) {
      std::fprintf(stderr, "caflow: cannot open '%s' for an actor's output\n", name.c_str());
      self->state.sinks.erase(name);
      return nullptr;
    }
    known = [file](std::string&& text) { *file << text << std::flush; };
  }
  return known;
}

// Writes a finished line (or, forced, whatever there is) where it goes.
void emit(printer* self, printer_state::line& l, bool forced) {
  if (l.text.empty() || (!forced && l.text.back() != '\n')) return;
  if (l.to) {
    l.to(std::move(l.text));
  } else if (self->state.everyone) {
    self->state.everyone(std::move(l.text));
  } else {
    std::fwrite(l.text.data(), 1, l.text.size(), stdout);
    std::fflush(stdout);
  }
  l.text.clear();
}

caf::behavior loop_printer(printer* self) {
  return {
      [self](caf::add_atom, caf::actor_id who, std::string& text) {
        if (text.empty() || who == caf::invalid_actor_id) return;
        auto& l = self->state.lines[who];
        l.text += text;
        emit(self, l, false);
      },
      [self](caf::flush_atom, caf::actor_id who) {
        if (auto i = self->state.lines.find(who); i != self->state.lines.end())
          emit(self, i->second, true);
      },
      [self](caf::delete_atom, caf::actor_id who) {
        if (auto i = self->state.lines.find(who); i != self->state.lines.end()) {
          emit(self, i->second, true);
          self->state.lines.erase(i);
        }
      },
      [self](caf::redirect_atom, const std::string& name, int flags) {
        self->state.everyone = sink_for(self, name, flags);
      },
      [self](caf::redirect_atom, caf::actor_id who, const std::string& name, int flags) {
        if (who != caf::invalid_actor_id) self->state.lines[who].to = sink_for(self, name, flags);
      },
  };
}

}  // namespace

caf::actor spawn_loop_printer(caf::actor_system& sys) {
  return sys.spawn<caf::hidden + caf::lazy_init>(loop_printer);
}

}  // namespace caflow
