// The layering rule of cmake/layers.cmake, checked over the source tree: every source file
// lies in a folder that a layer claims, and includes only headers of the layers its own layer
// sees. The compiler already refuses such an include (each layer compiles against a view of
// what it may see); this test says which file and line broke which rule, and also catches a
// new folder that no layer claims (whose sources no library would compile).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

struct layer_row {
  std::string name;
  std::vector<std::string> dirs, visible;
};

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// build/layers.txt: "name|dir dir|dep dep|visible visible", one layer a line.
std::vector<layer_row> read_layer_table(const fs::path& file) {
  std::ifstream in(file);
  REQUIRE_MESSAGE(in, "cannot read the layer table ", file.string());
  std::vector<layer_row> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::string field;
    for (std::istringstream cells(line); std::getline(cells, field, '|');) fields.push_back(field);
    fields.resize(4);
    rows.push_back({fields[0], words(fields[1]), words(fields[3])});
  }
  return rows;
}

bool is_source(const fs::path& p) {
  static const std::set<std::string> exts{".cpp", ".hpp", ".cu", ".cuh"};
  return exts.count(p.extension().string()) > 0;
}

// Every broken rule under `root`, one message each.
std::vector<std::string> check_layers(const fs::path& root, const std::vector<layer_row>& layers) {
  std::map<std::string, const layer_row*> layer_of_dir;
  std::set<std::string> tops;
  for (const auto& l : layers)
    for (const auto& d : l.dirs) {
      layer_of_dir[d] = &l;
      tops.insert(d.substr(0, d.find('/')));
    }
  auto layer_of = [&](const std::string& dir) -> const layer_row* {
    auto it = layer_of_dir.find(dir);
    return it == layer_of_dir.end() ? nullptr : it->second;
  };
  static const std::regex include_re(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<std::string> problems;
  std::vector<fs::path> files;
  for (const auto& top : tops) {
    if (!fs::exists(root / top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / top))
      if (e.is_regular_file() && is_source(e.path())) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string rel = fs::relative(path, root).generic_string();
    const std::string dir = fs::path(rel).parent_path().generic_string();
    const layer_row* from = layer_of(dir);
    if (!from) {
      problems.push_back(rel + " lies in " + dir +
                         "/, which no layer claims (add it to a caflow_layer in CMakeLists.txt)");
      continue;
    }
    std::ifstream in(path);
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      const std::string inc = m[1];
      if (!tops.count(inc.substr(0, inc.find('/')))) continue;  // a system or test header
      const std::string where = rel + ":" + std::to_string(line_no) + " ";
      const layer_row* to = layer_of(fs::path(inc).parent_path().generic_string());
      if (!to) {
        problems.push_back(where + "includes " + inc + ", which lies in no layer");
      } else if (std::find(from->visible.begin(), from->visible.end(), to->name) ==
                 from->visible.end()) {
        std::string sees;
        for (const auto& v : from->visible) sees += (sees.empty() ? "" : " ") + v;
        problems.push_back(where + "(layer " + from->name + ") may not include " + inc +
                           " (layer " + to->name + "); " + from->name + " sees: " + sees);
      }
    }
  }
  return problems;
}

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::vector<layer_row> toy_layers() {
  return {{"graph_core", {"graph/core"}, {"graph_core"}},
          {"actors", {"actors/session"}, {"actors", "graph_core"}}};
}

}  // namespace

TEST_CASE("caflow's sources keep their layers") {
  const auto layers = read_layer_table(CAFLOW_LAYER_TABLE);
  REQUIRE(layers.size() >= 10);
  const auto problems = check_layers(CAFLOW_SOURCE_DIR, layers);
  for (const auto& p : problems) MESSAGE(p);
  CHECK(problems.empty());
}

TEST_CASE("docs/layers.dot is the picture of the layers the build declares") {
  auto read = [](const fs::path& p) {
    std::ifstream in(p);
    REQUIRE_MESSAGE(in, "cannot read ", p.string());
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string built = read(CAFLOW_LAYER_DOT);
  CHECK(built.find("kernels_cpu -> kernels;") != std::string::npos);
  CHECK_MESSAGE(read(fs::path(CAFLOW_SOURCE_DIR) / "docs/layers.dot") == built,
                "docs/layers.dot is out of date: copy ", CAFLOW_LAYER_DOT, " over it");
}

TEST_CASE("an include that runs back up is reported with its file, line and layers") {
  caflow::testing::temp_dir root("caflow_layers_test_");
  write_file(root.path / "actors/session/session.hpp", "#pragma once\n");
  write_file(root.path / "graph/core/tensor.hpp",
             "#pragma once\n#include <vector>\n#include \"actors/session/session.hpp\"\n");
  write_file(root.path / "actors/session/session.cpp", "#include \"graph/core/tensor.hpp\"\n");
  const auto problems = check_layers(root.path, toy_layers());
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] ==
        "graph/core/tensor.hpp:3 (layer graph_core) may not include actors/session/session.hpp (layer "
        "actors); graph_core sees: graph_core");
}

TEST_CASE("a folder that no layer claims is reported") {
  caflow::testing::temp_dir root("caflow_layers_test_");
  write_file(root.path / "graph/core/shape.cpp", "#include \"graph/misc/util.hpp\"\n");
  write_file(root.path / "graph/misc/util.hpp", "#pragma once\n");
  const auto problems = check_layers(root.path, toy_layers());
  REQUIRE(problems.size() == 2);
  CHECK(problems[0] == "graph/core/shape.cpp:1 includes graph/misc/util.hpp, which lies in no layer");
  CHECK(problems[1] ==
        "graph/misc/util.hpp lies in graph/misc/, which no layer claims (add it to a "
        "caflow_layer in CMakeLists.txt)");
}
