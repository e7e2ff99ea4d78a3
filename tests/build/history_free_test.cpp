// The tree describes what the code is, not how it came to be: no source, comment, doc or script
// names a ticket of this project or a numbered period of past work ("issue N", "session N",
// "(item N)"). Such a name means nothing to a reader without the tracker, and the text around it
// usually narrates instead of stating the design. Upstream projects' tickets stay citable: a
// match preceded on its line by "upstream" or "CAF" passes ("CAF upstream issue 1196").
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "test_util/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

// What the walk covers, relative to the source root; folders are walked recursively.
const std::vector<std::string> checked_entries{
    "actors", "graph", "devices", "kernels", "net",    "apps",      "tests",         "bench",
    "scripts", "docs", "cmake",   ".ci",     "README.md", "CMakeLists.txt"};

// Fuzzers' inputs are arbitrary bytes, not prose.
const std::vector<std::string> skipped_folders{"tests/fuzz/corpus"};

// One of the words issue, ticket, session or stop followed by a number (optionally after '#'),
// or "item" and a number followed by "of" or inside parentheses; case does not matter. The
// number is what makes it a ticket: "a session's step" is the runtime's own word.
const std::regex& ticket_re() {
  static const std::regex re(
      std::string(R"(\b(issue|ticket|session|stop) #?[0-9]+)") + "|" +
          R"(\bitem [0-9]+ of\b)" + "|" + R"(\(item [0-9]+\))",
      std::regex::ECMAScript | std::regex::icase);
  return re;
}

// Text before a match that makes it a citation of another project's tracker.
bool cites_upstream(const std::string& before) {
  static const std::regex upstream(R"(\bupstream\b)", std::regex::ECMAScript | std::regex::icase);
  static const std::regex caf(R"(\bCAF\b)");
  return std::regex_search(before, upstream) || std::regex_search(before, caf);
}

// Cheap test before the regex: most lines have none of the words.
bool may_match(std::string lower) {
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* w : {"issue", "ticket", "session", "stop", "item"})
    if (lower.find(w) != std::string::npos) return true;
  return false;
}

bool is_binary(const std::string& bytes) { return bytes.find('\0') != std::string::npos; }

// "path:line: text" for every ticket named in `file` (shown as `rel`).
void check_file(const fs::path& file, const std::string& rel, std::vector<std::string>& found) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(in), {});
  if (is_binary(bytes)) return;
  std::size_t start = 0;
  for (int line_no = 1; start <= bytes.size(); ++line_no) {
    std::size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    const std::string line = bytes.substr(start, end - start);
    start = end + 1;
    if (!may_match(line)) continue;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), ticket_re());
         it != std::sregex_iterator(); ++it) {
      if (cites_upstream(line.substr(0, static_cast<std::size_t>(it->position())))) continue;
      found.push_back(rel + ":" + std::to_string(line_no) + ": " + line);
      break;
    }
  }
}

// Every ticket named under `root`'s `entries`, sorted by path.
std::vector<std::string> tickets_named(const fs::path& root, const std::vector<std::string>& entries) {
  std::vector<std::pair<std::string, fs::path>> files;
  auto skipped = [](const std::string& rel) {
    // npm's installs (git ignores them) are other projects' text, with their own histories.
    if (rel.ends_with("/node_modules") || rel.find("/node_modules/") != std::string::npos) return true;
    return std::any_of(skipped_folders.begin(), skipped_folders.end(), [&](const std::string& s) {
      return rel == s || rel.rfind(s + "/", 0) == 0;
    });
  };
  for (const auto& entry : entries) {
    const fs::path top = root / entry;
    if (fs::is_regular_file(top)) {
      files.emplace_back(entry, top);
    } else if (fs::is_directory(top)) {
      for (auto it = fs::recursive_directory_iterator(top); it != fs::recursive_directory_iterator();
           ++it) {
        const std::string rel = fs::relative(it->path(), root).generic_string();
        if (skipped(rel)) {
          if (it->is_directory()) it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file()) files.emplace_back(rel, it->path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> found;
  for (const auto& [rel, path] : files) check_file(path, rel, found);
  return found;
}

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("no file of the tree names a ticket or a numbered period of past work") {
  REQUIRE(fs::is_directory(fs::path(CAFLOW_SOURCE_DIR) / "docs"));
  const auto found = tickets_named(CAFLOW_SOURCE_DIR, checked_entries);
  for (const auto& f : found) MESSAGE(f);
  CHECK_MESSAGE(found.empty(),
                "say what the design is and why, without the ticket or period it came from");
}

TEST_CASE("a ticket is reported with its file and line; upstream citations and prose pass") {
  caflow::testing::temp_dir root("caflow_history_free_test_");
  // The texts are put together here so that this file itself names no ticket.
  const std::string n = std::to_string(22);
  write_file(root.path / "docs/notes.md",
             "# Notes\n"
             "as issue " + n + " showed, the ring needs a doorbell\n"
             "a hang fixed in CAF upstream issue 1196\n"
             "an upstream Issue #" + n + " too\n"
             "a session's step, the stop signal, an item of a list\n"
             "measured in Session " + n + "\n");
  const std::string m = std::to_string(8);
  write_file(root.path / "bench/x.cpp",
             "// the errors (item " + m + ")\n// see item " + m + " of the list\n// stop " + n +
                 " here\n");
  write_file(root.path / "tests/fuzz/corpus/seed", "issue " + n + "\n");
  write_file(root.path / "scripts/blob", std::string("issue ") + n + '\0' + "\n");
  write_file(root.path / "other/readme.md", "ticket " + n + "\n");

  const auto found = tickets_named(root.path, {"docs", "bench", "tests", "scripts"});
  REQUIRE(found.size() == 5);
  CHECK(found[0] == "bench/x.cpp:1: // the errors (item " + m + ")");
  CHECK(found[1] == "bench/x.cpp:2: // see item " + m + " of the list");
  CHECK(found[2] == "bench/x.cpp:3: // stop " + n + " here");
  CHECK(found[3] == "docs/notes.md:2: as issue " + n + " showed, the ring needs a doorbell");
  CHECK(found[4] == "docs/notes.md:6: measured in Session " + n);
}
