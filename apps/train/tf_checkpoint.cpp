#include "apps/train/tf_checkpoint.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "graph/ir/checkpoint_file.hpp"
#include "graph/ir/tensor_slice.hpp"
#include "graph/tf/tensor_bundle.hpp"

namespace caflow::train_app {
namespace {

// Writes `entries` as the bundle at `prefix`, as tf.train.Saver does: a shard of a partitioned
// variable as a slice of the full variable (its save_slice_info), the rest whole.
status write_entries(const std::string& prefix, const std::vector<train::saver::entry>& entries) {
  tf::bundle_writer out(prefix);
  for (const auto& e : entries) {
    if (e.slice.empty()) {
      CAFLOW_RETURN_IF_ERROR(out.add(e.name, e.value));
      continue;
    }
    CAFLOW_ASSIGN_OR_RETURN(tensor_slice box, parse_shape_and_slice(e.slice));
    CAFLOW_RETURN_IF_ERROR(out.add_slice(e.name, box, e.value));
  }
  return out.finish();
}

std::string bundle_name(int64_t step) { return "model.ckpt-" + std::to_string(step); }

// TF's CheckpointState in text format, what tf.train.latest_checkpoint reads: the newest
// bundle, then every kept one oldest first.
status write_state_file(const std::string& dir, int64_t newest, const std::vector<int64_t>& kept_newest_first) {
  std::string text = "model_checkpoint_path: \"" + bundle_name(newest) + "\"\n";
  for (auto it = kept_newest_first.rbegin(); it != kept_newest_first.rend(); ++it)
    text += "all_model_checkpoint_paths: \"" + bundle_name(*it) + "\"\n";
  return checkpoint::write_file_atomically((std::filesystem::path(dir) / "checkpoint").string(), text);
}

}  // namespace

status_or<std::string> write_tf_checkpoint(session& sess, const train::saver& saver,
                                           const std::string& dir, int64_t step) {
  CAFLOW_ASSIGN_OR_RETURN(auto entries, saver.entries(sess));
  const std::string prefix = (std::filesystem::path(dir) / bundle_name(step)).string();
  CAFLOW_RETURN_IF_ERROR(write_entries(prefix, entries));
  // The bundles follow caflow's own checkpoints: those the saver pruned go too.
  const std::vector<int64_t> kept = train::saver::checkpoint_steps(dir);
  for (const auto& file : std::filesystem::directory_iterator(dir)) {
    const std::string f = file.path().filename().string();
    if (!f.starts_with("model.ckpt-")) continue;
    const std::string digits = f.substr(11, f.find('.', 11) - 11);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const int64_t n = std::stoll(digits);
    if (n != step && std::find(kept.begin(), kept.end(), n) == kept.end()) {
      std::error_code ec;
      std::filesystem::remove(file.path(), ec);
    }
  }
  CAFLOW_RETURN_IF_ERROR(write_state_file(dir, step, kept));
  return prefix;
}

}  // namespace caflow::train_app
