#pragma once
// Tests' small actors from a lambda returning their behavior. Not sys.spawn(lambda): CAF 0.17
// dereferences a null shared_ptr<std::tuple<>> when a spawned function has no arguments
// (undefined behavior that the sanitizer build reports); one unused argument avoids it.
#include <caf/all.hpp>

namespace caflow::testing {

template <class MakeBehavior>
caf::actor spawn_function(caf::actor_system& sys, MakeBehavior make) {
  return sys.spawn([make](int) -> caf::behavior { return make(); }, 0);
}

}  // namespace caflow::testing
