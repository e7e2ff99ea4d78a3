#include "graph/client/train/saver.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <system_error>

#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/io_ops.hpp"
#include "graph/client/ops/state_ops.hpp"
#include "graph/ir/checkpoint_file.hpp"
#include "graph/ir/tensor_slice.hpp"

namespace caflow::train {
namespace {

namespace fs = std::filesystem;

std::string absolute_dir(const std::string& dir) {
  std::error_code ec;
  const fs::path p = fs::absolute(dir, ec);
  return ec ? dir : p.lexically_normal().string();
}

// The device a variable will be placed on, as far as the graph says: its own, or (optimizer
// slots) that of the node it is colocated with. Empty when nothing says.
std::string device_of(const scope& s, const node_def& node) {
  const node_def* n = &node;
  std::optional<node_def> target;
  for (int hops = 0; hops < 16 && n->device.empty(); ++hops) {
    const auto it = n->attrs.find("_class");
    if (it == n->attrs.end() || !it->second.holds<std::vector<std::string>>()) break;
    const auto& classes = it->second.get<std::vector<std::string>>();
    if (classes.empty() || !classes.front().starts_with("loc:@")) break;
    target = s.find_node(std::string_view(classes.front()).substr(5));
    if (!target) break;
    n = &*target;
  }
  return n->device;
}

// How a variable is saved: whole under its own name, or (a partitioned variable's shard, per
// its "_save_slice_info" attr) under the full variable's name as its slice, as tf.train.Saver
// does with save_slice_info.
struct saved_as {
  std::string name;
  std::string save_slice;     // "" for a whole tensor
  std::string restore_slice;  // what its RestoreV2 asks for
};

status_or<saved_as> saved_as_of(const scope& s, const node_def& node, const variable& v) {
  const partial_shape shape = s.shape_of(v.ref);
  const auto info = node.attrs.find(save_slice_info_attr);
  if (info == node.attrs.end()) {
    saved_as out{v.name(), "", ""};
    // A known shape is asked for whole with its full shape, so that RestoreV2 refuses another
    // shape before any Assign runs (a scalar's "" cannot say it; Assign checks it).
    if (shape.fully_defined() && shape.rank() > 0)
      out.restore_slice = whole_slice(shape.to_shape()).to_string();
    return out;
  }
  const auto* fields = info->second.holds<std::vector<std::string>>()
                           ? &info->second.get<std::vector<std::string>>()
                           : nullptr;
  if (!fields || fields->size() != 2 || fields->at(0).empty())
    return errors::invalid_argument("saver: variable '", v.name(), "' has attr ",
                                    save_slice_info_attr, " ", info->second.to_string(),
                                    "; expected {full name, shape_and_slice}");
  auto box = parse_shape_and_slice(fields->at(1));
  if (!box.ok())
    return box.get_status().with_context("saver: variable '" + v.name() + "' (a shard of '" +
                                         fields->at(0) + "')");
  if (shape.fully_defined() && shape.to_shape() != box->shape())
    return errors::invalid_argument("saver: variable '", v.name(), "' has shape ",
                                    shape.to_string(), ", but its slice '", fields->at(1),
                                    "' of '", fields->at(0), "' is ", box->shape().to_string());
  const std::string spec = box->to_string();
  return saved_as{fields->at(0), spec, spec};
}

// "a*b" matches itself only once every glob character is escaped.
std::string glob_escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

saver::saver(const scope& s, const variable_set& vars, const saver_options& opts) : opts_(opts) {
  if (opts.keep_last < 1) {
    s.update_status(errors::invalid_argument("saver: keep_last must be at least 1, got ",
                                             opts.keep_last));
    return;
  }
  if (vars.empty()) {
    s.update_status(errors::invalid_argument("saver: no variables to save"));
    return;
  }
  // Groups in the order their first variable was created, so shard numbers are stable for a
  // graph built the same way.
  struct member {
    variable var;
    saved_as as;
  };
  std::vector<std::string> devices;
  std::map<std::string, std::vector<member>> by_device;
  std::map<std::pair<std::string, std::string>, std::string> saved_by;  // (name, slice) -> var
  for (const auto& v : vars.global()) {
    const auto node = s.find_node(v.name());
    if (!node) {
      s.update_status(errors::not_found("saver: variable '", v.name(), "' is not in the graph"));
      return;
    }
    auto as = saved_as_of(s, *node, v);
    if (!as.ok()) {
      s.update_status(as.get_status());
      return;
    }
    const auto [other, fresh] = saved_by.try_emplace({as->name, as->save_slice}, v.name());
    if (!fresh) {
      s.update_status(errors::invalid_argument(
          "saver: variables '", other->second, "' and '", v.name(), "' would both be saved as '",
          checkpoint::entry_key(as->name, as->save_slice), "'"));
      return;
    }
    const std::string device = device_of(s, *node);
    auto [it, added] = by_device.try_emplace(device);
    if (added) devices.push_back(device);
    it->second.push_back({v, std::move(*as)});
  }

  const scope root = s.new_sub_scope("save");
  std::vector<scope> on_devices;
  std::vector<std::vector<output>> restored(devices.size());
  std::vector<operation> restores;
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& group = by_device[devices[i]];
    // The variables' device, whatever device function `s` has (a replica_device_setter would
    // send these ops to the worker).
    scope on_device = root.new_sub_scope("shard_" + std::to_string(i))
                          .with_device_function([](const node_def& n) { return n.device; });
    on_device = devices[i].empty() ? on_device.colocate_with(group.front().var.ref)
                                   : on_device.with_device(devices[i]);
    std::vector<std::string> names, save_slices, restore_slices;
    std::vector<output> values;
    std::vector<dtype> types;
    for (const auto& m : group) {
      names.push_back(m.as.name);
      save_slices.push_back(m.as.save_slice);
      restore_slices.push_back(m.as.restore_slice);
      values.push_back(m.var.ref);
      types.push_back(m.var.type());
    }
    shard sh;
    sh.device = devices[i];
    sh.prefix = ops::placeholder(on_device.with_op_name("prefix"), dtype::uint8);
    sh.pattern = ops::placeholder(on_device.with_op_name("pattern"), dtype::uint8);
    sh.save = ops::save_v2(on_device, sh.prefix, names, values, save_slices);
    sh.names = names;
    sh.slices = save_slices;
    sh.values = values;
    // Each shard's RestoreV2 runs on its variables' device and reads, from whichever files
    // hold them, exactly the rows its variables need.
    restored[i] = ops::restore_v2(on_device, sh.pattern, names, types, restore_slices);
    if (!restored[i].empty()) restores.push_back({restored[i].front().node, types});
    on_devices.push_back(on_device);
    shards_.push_back(std::move(sh));
  }
  // No Assign runs before every RestoreV2 has read and checked its tensors (dtype, full shape,
  // coverage), so a bad checkpoint fails the restore without changing any variable.
  std::vector<operation> assigns;
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& group = by_device[devices[i]];
    const scope after_reads = on_devices[i].with_control_dependencies(restores);
    for (size_t j = 0; j < group.size() && j < restored[i].size(); ++j) {
      const std::string& name = group[j].var.name();
      const output a = ops::assign(after_reads.with_op_name(name + "/restore"), group[j].var.ref,
                                   restored[i][j]);
      assigns.push_back({a.node, {a.type}});
    }
  }
  restore_ = ops::group(root.with_op_name("restore_all"), assigns);
}

std::vector<std::pair<output, tensor>> saver::prefix_feeds(const std::string& dir,
                                                           int64_t step) const {
  std::vector<std::pair<output, tensor>> feeds;
  const int n = num_shards();
  for (int i = 0; i < n; ++i) {
    const std::string path = (fs::path(dir) / checkpoint::shard_file_name(step, i, n)).string();
    feeds.emplace_back(shards_[i].prefix, checkpoint::path_tensor(path));
  }
  return feeds;
}

std::vector<std::pair<output, tensor>> saver::pattern_feeds(const std::string& dir, int64_t step,
                                                            int saved_shards) const {
  const std::string pattern =
      glob_escape(dir) + "/" +
      errors::concat("ckpt-", static_cast<long long>(step), ".shard-*-of-", saved_shards);
  std::vector<std::pair<output, tensor>> feeds;
  for (const auto& sh : shards_) feeds.emplace_back(sh.pattern, checkpoint::path_tensor(pattern));
  return feeds;
}

status_or<std::string> saver::save(step_runner& sess, const std::string& dir, int64_t step) const {
  if (shards_.empty()) return errors::failed_precondition("saver: built with errors, see its scope");
  if (step < 0) return errors::invalid_argument("saver: negative step ", step);
  const std::string abs = absolute_dir(dir);
  std::error_code ec;
  fs::create_directories(abs, ec);
  if (ec) return errors::internal("saver: cannot create '", abs, "': ", ec.message());

  std::vector<operation> saves;
  for (const auto& sh : shards_) saves.push_back(sh.save);
  CAFLOW_RETURN_IF_ERROR(sess.run_targets(saves, prefix_feeds(abs, step)));
  CAFLOW_RETURN_IF_ERROR(checkpoint::write_index(abs, {.step = step, .num_shards = num_shards()}));
  CAFLOW_RETURN_IF_ERROR(prune(abs, step));
  return (fs::path(abs) / checkpoint::index_file_name(step)).string();
}

status saver::prune(const std::string& dir, int64_t step) const {
  std::vector<int64_t> kept;
  for (int64_t s : checkpoint_steps(dir))
    if (s <= step && static_cast<int>(kept.size()) < opts_.keep_last) kept.push_back(s);
  const int64_t oldest_kept = kept.empty() ? step : kept.back();

  // Index files first, so an interrupted prune never leaves an index without its shards.
  std::vector<fs::path> indexes, others;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const auto s = checkpoint::step_of_file_name(name);
    if (!s || (*s >= oldest_kept && *s <= step)) continue;
    (checkpoint::is_index_file_name(name) ? indexes : others).push_back(entry.path());
  }
  if (ec) return errors::internal("saver: cannot list '", dir, "': ", ec.message());
  for (const auto* list : {&indexes, &others})
    for (const auto& p : *list) {
      fs::remove(p, ec);
      if (ec) return errors::internal("saver: cannot remove '", p.string(), "': ", ec.message());
    }
  return {};
}

std::vector<int64_t> saver::checkpoint_steps(const std::string& dir) {
  std::vector<int64_t> steps;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (checkpoint::is_index_file_name(name)) steps.push_back(*checkpoint::step_of_file_name(name));
  }
  std::sort(steps.rbegin(), steps.rend());
  return steps;
}

status_or<restore_result> saver::restore_latest(step_runner& sess, const std::string& dir) const {
  if (shards_.empty()) return errors::failed_precondition("saver: built with errors, see its scope");
  const std::string abs = absolute_dir(dir);
  const auto steps = checkpoint_steps(abs);
  if (steps.empty()) return errors::not_found("no checkpoint in '", abs, "'");

  restore_result result;
  for (int64_t step : steps) {
    const std::string index_path = (fs::path(abs) / checkpoint::index_file_name(step)).string();
    auto idx = checkpoint::read_index(index_path);
    status st = idx.get_status();
    // The checkpoint may come from another placement (another number of ps tasks or of
    // shards): every RestoreV2 reads all its files, which must all be there.
    for (int i = 0; st.ok() && i < idx->num_shards; ++i) {
      const fs::path file = fs::path(abs) / checkpoint::shard_file_name(step, i, idx->num_shards);
      std::error_code ec;
      if (!fs::is_regular_file(file, ec))
        st = errors::data_loss("checkpoint '", index_path, "' lacks its shard file '",
                               file.string(), "'");
    }
    if (st.ok()) st = sess.run_targets({restore_}, pattern_feeds(abs, step, idx->num_shards));
    // A cluster that cannot run the restore says nothing about this checkpoint: trying the
    // older ones would fail the same way and report good files as unusable.
    if (st.code() == error_code::unavailable || st.code() == error_code::aborted ||
        st.code() == error_code::cancelled || st.code() == error_code::deadline_exceeded)
      return st;
    if (st.ok()) {
      result.step = step;
      result.index_file = index_path;
      return result;
    }
    result.skipped.push_back(st);
  }
  std::string why;
  for (const auto& st : result.skipped) why += "\n  " + st.to_string();
  return errors::data_loss("none of the ", static_cast<int64_t>(steps.size()),
                           " checkpoints in '", abs, "' could be restored:", why);
}

status saver::restore(step_runner& sess, const std::string& prefix) const {
  if (shards_.empty()) return errors::failed_precondition("saver: built with errors, see its scope");
  // Every shard's RestoreV2 reads the whole checkpoint and keeps what its variables need.
  std::vector<std::pair<output, tensor>> feeds;
  for (const auto& sh : shards_) feeds.emplace_back(sh.pattern, checkpoint::path_tensor(prefix));
  return sess.run_targets({restore_}, feeds);
}

status_or<std::vector<saver::entry>> saver::entries(step_runner& sess) const {
  if (shards_.empty()) return errors::failed_precondition("saver: built with errors, see its scope");
  // One variable a step: a model's variables can be far bigger than what one step should move.
  std::vector<entry> out;
  for (const auto& sh : shards_)
    for (size_t i = 0; i < sh.names.size(); ++i) {
      CAFLOW_ASSIGN_OR_RETURN(std::vector<tensor> got, sess.run({}, {sh.values[i]}));
      out.push_back({sh.names[i], sh.slices[i], std::move(got[0])});
    }
  return out;
}

}  // namespace caflow::train
