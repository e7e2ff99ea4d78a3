#pragma once
// What caflow-run feeds a model: each input from the .npy file the command line names, or the
// fixed pattern that caflow's TF.js goldens use (so a run can be checked against them).
#include <string>
#include <vector>

#include "actors/session/session.hpp"
#include "graph/tf/model_import.hpp"

namespace caflow::run_app {

// x[i] = ((i * 7919) % 1000) / 1000 - 0.5 for floating types, (i * 7919) % 1000 for integers,
// i % 2 for bool, over the elements in row-major order.
tensor input_pattern(dtype type, const tensor_shape& shape);

struct feed_request {
  // {} lets designated initializers omit them.
  std::vector<std::string> files{};   // "NAME=FILE.npy", NAME an input's name or node
  std::vector<std::string> shapes{};  // "NAME=D0,D1,...": a pattern input's whole shape
  int64_t batch = 0;                // a pattern input's leading dimension; 0: the model's, or 1
};

// The feeds of every input of `model`, keyed "node:port": from its file, else the pattern in
// its given shape, else in the model's with the unknown leading dimension set to `batch` (1
// when 0). When `batch` differs from a leading dimension the model fixes, that Placeholder's
// shape is relaxed in `model->graph` and `notes` says so. Errors name the input and, for files,
// the file.
status_or<session::named_feed_list> make_feeds(tf::imported_model* model, const feed_request& request,
                                               std::vector<std::string>* notes);

}  // namespace caflow::run_app
