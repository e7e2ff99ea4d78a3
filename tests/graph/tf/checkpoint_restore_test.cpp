// A graph built with caflow's C++ API restores variables from a checkpoint TensorFlow wrote
// (tensorflow/serving's half_plus_two: a = 0.5, b = 2.0, c = 3.0), by name, through saver::restore
// and RestoreV2 reading the tensor bundle; all variables or none.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "actors/session/session.hpp"
#include "graph/client/ops/ops.hpp"
#include "graph/client/train/saver.hpp"
#include "graph/client/train/variables.hpp"
#include "test_util/kernel_fixture.hpp"
#include "test_util/temp_dir.hpp"

using namespace caflow;
using caflow::testing::check_error;
namespace fs = std::filesystem;

namespace {

const std::string half_plus_two =
    std::string(CAFLOW_SOURCE_DIR "/tests/data/tf/saved_model_half_plus_two/variables/variables");

// Scalar float variables of the given names, initialized to 7.
struct model {
  scope root = scope::new_root();
  train::variable_set vars;
  operation init;
  explicit model(const std::vector<std::string>& names, dtype type = dtype::float32) {
    for (const auto& n : names)
      vars.add(train::create_variable(root, n, type == dtype::float32 ? ops::constant(root, 7.0f)
                                                                     : ops::constant(root, 7.0)));
    init = train::global_variables_initializer(root, vars);
  }
  std::vector<float> values(session& sess) {
    std::vector<output> outs(vars.global().begin(), vars.global().end());
    auto got = sess.run(outs);
    REQUIRE_MESSAGE(got.ok(), got.get_status().to_string());
    std::vector<float> v;
    for (const tensor& t : *got) v.push_back(t.scalar_value<float>());
    return v;
  }
};

}  // namespace

TEST_CASE("variables restore by name from a TensorFlow-written bundle") {
  model m({"a", "b", "c"});
  train::saver saver(m.root, m.vars);
  REQUIRE_MESSAGE(m.root.ok(), m.root.get_status().to_string());
  session sess(m.root);
  REQUIRE(saver.restore(sess, half_plus_two).ok());  // restoring initializes them
  CHECK(m.values(sess) == std::vector<float>{0.5f, 2.0f, 3.0f});
}

TEST_CASE("a name the bundle lacks, another dtype or a corrupt file changes no variable") {
  SUBCASE("a missing name") {
    model m({"a", "w"});
    train::saver saver(m.root, m.vars);
    session sess(m.root);
    REQUIRE(sess.run_targets({m.init}).ok());
    check_error(saver.restore(sess, half_plus_two),
                "variables.index: no tensor 'w' (it holds: a, a2, b, c, c2)");
    CHECK(m.values(sess) == std::vector<float>{7, 7});
  }
  SUBCASE("another dtype") {
    model m({"a"}, dtype::float64);
    train::saver saver(m.root, m.vars);
    session sess(m.root);
    REQUIRE(sess.run_targets({m.init}).ok());
    check_error(saver.restore(sess, half_plus_two), "variables.index: 'a' is float32, restored as float64");
  }
  SUBCASE("a corrupt data shard") {
    caflow::testing::temp_dir dir("caflow_tf_restore_");
    fs::copy_file(half_plus_two + ".index", dir.file("v.index"));
    fs::copy_file(half_plus_two + ".data-00000-of-00001", dir.file("v.data-00000-of-00001"));
    {
      std::fstream f(dir.file("v.data-00000-of-00001"), std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(0);
      f.put('\x5a');
    }
    model m({"a", "b", "c"});
    train::saver saver(m.root, m.vars);
    session sess(m.root);
    REQUIRE(sess.run_targets({m.init}).ok());
    const status st = saver.restore(sess, dir.file("v"));
    REQUIRE_FALSE(st.ok());
    CHECK(st.code() == error_code::data_loss);
    CHECK(st.message().find(dir.file("v.data-00000-of-00001")) != std::string::npos);
    CHECK(m.values(sess) == std::vector<float>{7, 7, 7});
  }
}
