// Tests mirror the source tree: every folder a layer claims (build/layers.txt) has its tests
// directly in the same folder under tests/, or a line in tests/covered_by.txt naming the test
// folder that covers it, and why. A new source folder without either fails here.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

// Every folder of every layer in the table ("name|dir dir|deps|visible", one layer a line).
std::vector<std::string> layer_dirs(const fs::path& table) {
  std::ifstream in(table);
  REQUIRE_MESSAGE(in, "cannot read the layer table ", table.string());
  std::vector<std::string> dirs;
  for (std::string line; std::getline(in, line);) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    std::istringstream words(line.substr(bar + 1, line.find('|', bar + 1) - bar - 1));
    for (std::string d; words >> d;) dirs.push_back(d);
  }
  return dirs;
}

bool has_test(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().ends_with("_test.cpp")) return true;
  return false;
}

// One message per source folder without tests, and per covered_by line that names a folder
// that no layer claims or a test folder without tests.
std::vector<std::string> check_test_tree(const fs::path& root, const std::vector<std::string>& dirs,
                                         const std::string& covered_by) {
  std::vector<std::string> problems;
  std::map<std::string, std::string> covered;  // source folder -> test folder
  std::istringstream lines(covered_by);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string source, tests, why;
    words >> source >> tests;
    std::getline(words, why);
    if (tests.empty() || why.find_first_not_of(' ') == std::string::npos) {
      problems.push_back("tests/covered_by.txt:" + std::to_string(number) +
                         ": expected 'source-folder test-folder why'");
      continue;
    }
    covered[source] = tests;
    if (std::find(dirs.begin(), dirs.end(), source) == dirs.end())
      problems.push_back("tests/covered_by.txt:" + std::to_string(number) + ": " + source +
                         " is no layer's folder");
    if (!has_test(root / tests))
      problems.push_back("tests/covered_by.txt:" + std::to_string(number) + ": " + tests +
                         " holds no *_test.cpp");
  }
  for (const std::string& d : dirs) {
    if (covered.count(d) || has_test(root / "tests" / d)) continue;
    problems.push_back(d + "/ has no tests in tests/" + d +
                       "/ and no line in tests/covered_by.txt");
  }
  return problems;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE_MESSAGE(in, "cannot read ", p.string());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("every source folder has its tests") {
  const auto dirs = layer_dirs(CAFLOW_LAYER_TABLE);
  REQUIRE(dirs.size() >= 20);
  const fs::path root = CAFLOW_SOURCE_DIR;
  const auto problems = check_test_tree(root, dirs, read(root / "tests/covered_by.txt"));
  for (const auto& p : problems) MESSAGE(p);
  CHECK(problems.empty());
}

TEST_CASE("a source folder without tests is reported, unless a covered_by line names them") {
  caflow::testing::temp_dir root("caflow_test_tree_");
  write_file(root.path / "tests/net/wire/wire_test.cpp", "");
  write_file(root.path / "tests/kernels/cpu/matmul_test.cpp", "");
  const std::vector<std::string> dirs{"net/wire", "net/shm", "kernels/common"};
  auto problems = check_test_tree(root.path, dirs, "");
  REQUIRE(problems.size() == 2);
  CHECK(problems[0] == "net/shm/ has no tests in tests/net/shm/ and no line in tests/covered_by.txt");
  CHECK(problems[1] ==
        "kernels/common/ has no tests in tests/kernels/common/ and no line in tests/covered_by.txt");

  problems = check_test_tree(root.path, dirs,
                             "# comment\nkernels/common tests/kernels/cpu  shared checks\n"
                             "net/shm tests/net/ring  rings and segments share a test\n");
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "tests/covered_by.txt:3: tests/net/ring holds no *_test.cpp");

  problems = check_test_tree(root.path, dirs, "net/gone tests/net/wire  left over\nnet/shm\n");
  REQUIRE(problems.size() == 4);
  CHECK(problems[0] == "tests/covered_by.txt:1: net/gone is no layer's folder");
  CHECK(problems[1] == "tests/covered_by.txt:2: expected 'source-folder test-folder why'");
  CHECK(problems[2] == "net/shm/ has no tests in tests/net/shm/ and no line in tests/covered_by.txt");
  CHECK(problems[3] ==
        "kernels/common/ has no tests in tests/kernels/common/ and no line in tests/covered_by.txt");
}
