#pragma once
// What one step shares with every kernel it runs: its id, the call frame through which a
// session feeds and fetches tensors, and the cancellation that aborts it.
#include <cstdint>
#include <vector>

#include "graph/core/tensor.hpp"
#include "kernels/framework/cancellation.hpp"

namespace caflow {

// Feeds in, fetches out: _Arg nodes read args[index], _Retval nodes write rets[index].
struct call_frame {
  std::vector<tensor> args;
  std::vector<tensor> rets;
};

class rendezvous;  // cut-edge transfers (distributed runtime)
// Where a traced step's executor records each node it runs (actors/executor/trace_recorder.hpp,
// above this layer: kernels never touch it).
class trace_recorder;

struct step_context {
  int64_t step_id = 0;
  call_frame* frame = nullptr;
  cancellation_manager* cancellation = nullptr;
  rendezvous* rdv = nullptr;
  trace_recorder* trace = nullptr;  // set for a traced step (run_step_request::trace)
};

}  // namespace caflow
