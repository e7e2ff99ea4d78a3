#pragma once
// The console's commands: the words a user types, how each runs (most are one question to the
// admin actor), and how answers print (aligned tables).
#include <string>
#include <string_view>
#include <vector>

#include "admin_client.hpp"

namespace caflow::console {

struct command_info {
  const char* name;
  const char* args;  // e.g. "NAME", "on|off [TASK]"
  const char* help;
};
// Every command, in the order `help` lists them.
const std::vector<command_info>& commands();

std::vector<std::string> split_words(std::string_view line);
// "cluster; vars ;steps" -> {"cluster", "vars", "steps"} (empty pieces dropped).
std::vector<std::string> split_commands(std::string_view line);

// Columns padded to their widest cell, a rule under the header, then the notes.
std::string format_table(const admin_table& t);

// What a line of input did.
struct outcome {
  status result;
  std::string output;
  bool quit = false;
};

// Runs one command line against the cluster behind `client`.
outcome run_command(admin_client& client, const std::string& line);

}  // namespace caflow::console
