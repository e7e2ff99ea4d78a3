#pragma once
// caflow-run's command line.
#include <string>
#include <vector>

#include "graph/core/status.hpp"
#include "net/security/transport_security.hpp"

namespace caflow::run_app {

struct run_options {
  std::string model;                        // .pb, .pbtxt or .json
  std::vector<std::string> inputs;          // "NAME=FILE.npy"
  std::vector<std::string> shapes;          // "NAME=D0,D1,..."
  std::vector<std::string> outputs;         // tensors to fetch instead of the model's outputs
  std::string output_dir;                   // where fetched tensors go as .npy; "" writes none
  int64_t batch = 0;                        // 0: not given
  int runs = 1;
  int threads = 0;                          // 0: every hardware thread
  std::string target = "local";
  std::string place;                        // "PREFIX=DEVICE,..."
  std::string export_path;                  // write the graph as a binary GraphDef; "" writes none
  std::string export_saved_model;           // write it as a TF1 SavedModel folder; "" writes none
  bool log_device_placement = false;
  transport_security security;
};

// Parses argv into `o`; on --help sets `help` and the text to print.
status parse_command_line(int argc, char** argv, run_options* o, bool* help, std::string* help_text);

}  // namespace caflow::run_app
