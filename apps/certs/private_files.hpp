#pragma once
// The files caflow-certs writes: into a directory it creates when missing, each one complete or
// not there at all (written beside, then moved into place), private keys readable by their
// owner only, and nothing that is already there replaced without --force.
#include <sys/types.h>

#include <string>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow::certs {

// Creates `dir` (and its parents) when missing. Errors name the directory: a path that is a file,
// or one that cannot be made.
status prepare_directory(const std::string& dir);

// ALREADY_EXISTS naming the first of `paths` that exists, unless `force`. Checked for every file
// of a command before any is written, so a refused command leaves the directory as it was.
status check_absent(const std::vector<std::string>& paths, bool force);

// Writes `contents` to `path` with permissions `mode` (0600 for keys: the mode is the temporary
// file's from the start, never wider for a moment). Without `force` an existing file is an error
// even when it appeared since check_absent.
status write_file(const std::string& path, const std::string& contents, mode_t mode, bool force);

}  // namespace caflow::certs
