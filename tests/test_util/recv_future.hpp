#pragma once
// What a _Recv gets from a rendezvous, as a future: for tests that push values at it from
// elsewhere (a rendezvous actor) and then wait, bounded.
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "kernels/framework/rendezvous.hpp"

namespace caflow::testing {

inline std::future<status_or<tensor>> recv_future(rendezvous& rdv, const std::string& key,
                                                  int64_t step) {
  auto done = std::make_shared<std::promise<status_or<tensor>>>();
  auto got = done->get_future();
  rdv.recv_async(key, step, [done](const status& st, const tensor& t) {
    if (st.ok())
      done->set_value(t);
    else
      done->set_value(st);
  });
  return got;
}

// The value or error of `got`, which must come within 5 s.
inline status_or<tensor> await_recv(std::future<status_or<tensor>>& got, int64_t step) {
  REQUIRE_MESSAGE(got.wait_for(std::chrono::seconds(5)) == std::future_status::ready,
                  "the _Recv of step ", step, " was never completed");
  return got.get();
}

}  // namespace caflow::testing
