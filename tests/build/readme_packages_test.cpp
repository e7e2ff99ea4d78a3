// The README's package list is scripts/setup.sh's, word for word: a package added to one and
// not the other fails here, not on a new user's machine.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  REQUIRE_MESSAGE(f.good(), "cannot read ", path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The words between `open` (after its first occurrence past `anchor`) and the next `close`.
std::string between(const std::string& text, const std::string& anchor, const std::string& open,
                    const std::string& close) {
  const size_t a = text.find(anchor);
  REQUIRE_MESSAGE(a != std::string::npos, "no '", anchor, "'");
  const size_t b = text.find(open, a);
  REQUIRE_MESSAGE(b != std::string::npos, "no '", open, "' after '", anchor, "'");
  const size_t e = text.find(close, b + open.size());
  REQUIRE_MESSAGE(e != std::string::npos, "no '", close, "' after '", open, "'");
  return text.substr(b + open.size(), e - b - open.size());
}

}  // namespace

TEST_CASE("the README lists exactly the packages scripts/setup.sh installs, in its order") {
  const std::string setup = read_file(CAFLOW_SOURCE_DIR "/scripts/setup.sh");
  const std::string readme = read_file(CAFLOW_SOURCE_DIR "/README.md");
  const auto installed = words(between(setup, "packages=(", "(", ")"));
  const auto listed = words(between(readme, "exactly these Debian", "```text", "```"));
  REQUIRE(installed.size() >= 10);
  CHECK(listed == installed);
}
