#pragma once
// Which files a task's kernels may read and write (SaveV2, RestoreV2 and any later file op).
// A graph comes from whoever reached the task's port, so a server confines its file ops to the
// directories its own options name (caflow-server --checkpoint-root); a path outside them is
// refused before anything is opened. A local session's devices work for the process itself and
// may touch any file.
#include <optional>
#include <string>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow {

class file_access {
 public:
  // Any file (a local session's devices).
  static file_access anywhere() { return file_access(); }
  // Only files below these directories (made absolute, symbolic links resolved); none: no file.
  static file_access below(std::vector<std::string> roots);

  bool restricted() const { return roots_.has_value(); }
  const std::vector<std::string>& roots() const;

  // OK when `path` (a file, or a glob pattern in its last component) lies below one of the
  // roots, after making it absolute and resolving the links of its directory; otherwise
  // permission_denied naming the path, the roots and the option that allows more.
  status check(const std::string& path) const;

 private:
  std::optional<std::vector<std::string>> roots_;
};

}  // namespace caflow
