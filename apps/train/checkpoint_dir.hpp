#pragma once
// The checkpoint directory, checked when caflow-train starts: a path that is a file, cannot be
// created or cannot be written is a one-line error before any task serves or any step runs,
// not a hang or a failure at the first save, hours into training.
#include <string>

#include "graph/core/status.hpp"

namespace caflow::train_app {

// Creates `dir` (and its parents) when missing, then proves it writable by creating and
// removing a file in it. Errors name the directory and the reason.
status prepare_checkpoint_dir(const std::string& dir);

}  // namespace caflow::train_app
