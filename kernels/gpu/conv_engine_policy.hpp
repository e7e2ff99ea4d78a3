#pragma once
// Which of cuDNN's backend engines a convolution may use, and how the measured candidates
// (engine plans and the legacy cudnnFind algorithm) are ranked. Host logic only (no CUDA), so
// it is tested without a GPU; conv_engine.cpp maps cuDNN's enums onto these.
//
// CAFLOW_CUDNN_ENGINES=0 (or "false", "off", "no") turns the engine path off: the kernels then
// use only the legacy cudnnFind algorithms, so both can be compared in one run.
// CAFLOW_CUDNN_ENGINES=log keeps it on and says on std::clog what each kernel chose per shape
// and how fast the legacy algorithm was. Read when a kernel is made.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

namespace caflow::gpu {

struct engine_switch {
  bool on = true;            // the engine path runs
  bool log_choices = false;  // each choice is said on std::clog
};

// The switch as the value of CAFLOW_CUDNN_ENGINES (null when unset) sets it.
inline engine_switch parse_engine_switch(const char* env) {
  if (env == nullptr) return {};
  const std::string_view v(env);
  if (v == "0" || v == "false" || v == "off" || v == "no" || v == "FALSE" || v == "OFF")
    return {.on = false, .log_choices = false};
  return {.on = true, .log_choices = v == "log"};
}
inline engine_switch engine_switch_from_environment() {
  return parse_engine_switch(std::getenv("CAFLOW_CUDNN_ENGINES"));
}

// What an engine says of itself (cuDNN's numerical and behaviour notes), as far as the choice
// depends on it.
enum class engine_note {
  tensor_core,          // runs on tensor cores: for float32 that is TF32's 10-bit mantissa
  down_convert_inputs,  // converts its inputs to a narrower type first
  reduced_precision_reduction,
  runtime_compilation,  // compiled by NVRTC when its plan is made: seconds per shape
  requires_reorder,     // reads operands only after a reordering pass caflow does not run
  other,                // FFT, Winograd, nondeterminism...: full float32, as the legacy path allows
};

// Why an engine with these notes is not taken, or null when it may be. Only engines computing
// in full float32 are taken, so results agree with the CPU kernels and cuBLAS's MatMul to
// float32 rounding (as the legacy path's FMA math type ensures there); and none compiled at
// run time, so a search costs milliseconds, not seconds.
inline const char* refusal_of(const std::vector<engine_note>& notes) {
  for (engine_note n : notes) {
    switch (n) {
      case engine_note::tensor_core:
        return "runs on tensor cores (TF32 for float32)";
      case engine_note::down_convert_inputs:
        return "converts its inputs to a narrower type";
      case engine_note::reduced_precision_reduction:
        return "reduces in reduced precision";
      case engine_note::runtime_compilation:
        return "is compiled at run time";
      case engine_note::requires_reorder:
        return "needs its operands reordered";
      case engine_note::other:
        break;
    }
  }
  return nullptr;
}

// The most plans taken from one heuristics query (refused and failed ones not counted), in its
// order, best guess first. PyTorch's benchmark mode times at most 10 per shape over both of its
// queries (torch.backends.cudnn.benchmark_limit); the tail is rarely faster, and each plan costs
// a finalization and a few runs at the first step of a shape.
constexpr size_t max_configs_per_query = 10;

// The most workspace a candidate may ask for: larger ones would crowd out the tensors.
constexpr int64_t max_engine_workspace = int64_t{512} << 20;

// One measured candidate: `ms` is its best time, empty when it failed or was not measured.
struct candidate_time {
  std::optional<float> ms;
};

// The index of the fastest candidate that ran, the earliest one on a tie (candidates come in
// the heuristics' order, best guess first), or none when none ran.
inline std::optional<size_t> fastest_candidate(const std::vector<candidate_time>& times) {
  std::optional<size_t> best;
  for (size_t i = 0; i < times.size(); ++i) {
    if (!times[i].ms) continue;
    if (!best || *times[i].ms < *times[*best].ms) best = i;
  }
  return best;
}

// A candidate whose first timed run is this many times slower than the best so far is not
// timed again: searching then costs little more than one run of each.
constexpr float give_up_factor = 3.0f;

}  // namespace caflow::gpu
