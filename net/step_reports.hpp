#pragma once
// What a step and a session's client report beyond their values: the nodes a traced step ran
// (a session's step metadata, the console's traces) and the summaries a client wrote (the
// console's `summaries`). Plain messages, so that the session's header needs no more of the
// admin protocol than these.
#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

namespace caflow {

// One executed node while tracing. Times are microseconds on the recording task's wall clock
// (system_clock) until the collecting admin shifts them onto its own clock.
struct trace_event {
  std::string task;
  std::string device;
  std::string node;
  std::string op;
  std::string peer;  // _Send: the receiving device; _Recv: the sending device; else empty
  int64_t step_id = 0;
  int64_t start_us = 0;
  int64_t dur_us = 0;
  int64_t bytes = -1;  // _Send/_Recv: the tensor's bytes; -1 for other nodes
  std::string key{};   // _Send/_Recv: the rendezvous key, which pairs them; else empty
};

// A value a client wrote to its event file, as the console shows it (`summaries`).
struct summary_scalar {
  std::string tag;
  int64_t step = 0;
  double value = 0;
  int64_t wall_us = 0;  // the client's system_clock when it wrote the value
};

// What a session's client reports of its summaries: where its event file is (`logdir`) and
// the scalars it wrote last. Its master keeps the last value of each tag.
struct summary_report {
  std::string logdir;
  std::string file;
  std::vector<summary_scalar> scalars;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trace_event& x) {
  return f(caf::meta::type_name("trace_event"), x.task, x.device, x.node, x.op, x.peer, x.step_id,
           x.start_us, x.dur_us, x.bytes, x.key);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, summary_scalar& x) {
  return f(caf::meta::type_name("summary_scalar"), x.tag, x.step, x.value, x.wall_us);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, summary_report& x) {
  return f(caf::meta::type_name("summary_report"), x.logdir, x.file, x.scalars);
}

}  // namespace caflow
