#include "devices/file_access.hpp"

#include <filesystem>
#include <system_error>

namespace caflow {
namespace {

namespace fs = std::filesystem;

// Absolute, normalized, with the links of its existing leading directories resolved.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  fs::path out = fs::weakly_canonical(abs, ec);
  return (ec ? abs : out).lexically_normal();
}

bool is_below(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // the trailing "" of "/a/b/"
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

std::string list(const std::vector<std::string>& roots) {
  std::string out;
  for (const std::string& r : roots) out += (out.empty() ? "'" : ", '") + r + "'";
  return out;
}

}  // namespace

file_access file_access::below(std::vector<std::string> roots) {
  file_access a;
  std::vector<std::string> resolved_roots;
  for (const std::string& r : roots) resolved_roots.push_back(resolved(r).string());
  a.roots_ = std::move(resolved_roots);
  return a;
}

const std::vector<std::string>& file_access::roots() const {
  static const std::vector<std::string> none;
  return roots_ ? *roots_ : none;
}

status file_access::check(const std::string& path) const {
  if (!roots_) return {};
  const fs::path given(path);
  // The directory is resolved (it may hold links); the last component may be a pattern.
  const fs::path name = given.filename();
  if (name == ".." || name == ".")
    return errors::permission_denied("file path '", path, "' names a directory, not a file");
  const fs::path full = resolved(given.parent_path().empty() ? fs::path(".") : given.parent_path()) / name;
  for (const std::string& root : *roots_)
    if (is_below(full, fs::path(root))) return {};
  if (roots_->empty())
    return errors::permission_denied("file path '", path,
                                     "' is refused: this task allows no file access; start it "
                                     "with --checkpoint-root DIR to allow files below DIR");
  return errors::permission_denied("file path '", path, "' (", full.string(),
                                   ") is outside the directories this task allows (",
                                   list(*roots_), "); start it with --checkpoint-root for more");
}

}  // namespace caflow
