#include "graph/ir/checkpoint_reader.hpp"

#include "graph/ir/checkpoint_file.hpp"

namespace caflow {
namespace {

std::string describe(const std::vector<std::string>& paths) {
  std::string out = paths.size() == 1 ? "checkpoint file " : "checkpoint files ";
  for (size_t i = 0; i < paths.size(); ++i) out += (i ? ", '" : "'") + paths[i] + "'";
  return out;
}

// "'10 4 0,4:-', '10 4 4,6:-'": the boxes of a tensor's saved slices, for error messages.
std::string slices_of(const std::vector<std::string>& specs) {
  std::string out;
  for (size_t i = 0; i < specs.size(); ++i) out += (i ? ", '" : "'") + specs[i] + "'";
  return out;
}

}  // namespace

status_or<checkpoint_reader> checkpoint_reader::open(const std::vector<std::string>& paths,
                                                     const std::shared_ptr<allocator>& alloc) {
  checkpoint_reader r;
  r.where_ = describe(paths);
  r.plural_ = paths.size() > 1;
  for (const std::string& path : paths) {
    CAFLOW_ASSIGN_OR_RETURN(auto tensors, checkpoint::read_tensors(path, alloc));
    for (auto& [key, value] : tensors) CAFLOW_RETURN_IF_ERROR(r.add(path, key, std::move(value)));
  }
  return r;
}

status checkpoint_reader::add(const std::string& file, std::string_view key, tensor value) {
  const auto [name, spec] = checkpoint::split_entry_key(key);
  entry e{file, std::move(value), {}, !spec.empty()};
  if (e.sliced) {
    auto box = parse_shape_and_slice(spec);
    if (!box.ok())
      return errors::data_loss("checkpoint file '", file, "': entry '", key,
                               "' has a corrupt slice spec: ", box.get_status().message());
    if (box->shape() != e.value.shape())
      return errors::data_loss("checkpoint file '", file, "': entry '", key, "' holds ",
                               e.value.shape().to_string(), ", but its slice is ",
                               box->shape().to_string());
    e.box = std::move(*box);
  } else {
    e.box = whole_slice(e.value.shape());
  }
  auto& same = entries_[std::string(name)];
  for (const entry& other : same) {
    const auto clash = [&](auto&&... what) {
      return errors::data_loss("checkpoint: tensor '", name, "' ", what..., " in '", other.file,
                               "' and '", file, "'");
    };
    if (other.value.type() != e.value.type())
      return clash("is saved as ", dtype_name(other.value.type()), " and as ",
                   dtype_name(e.value.type()));
    if (other.box.full != e.box.full)
      return clash("is saved with full shapes ", other.box.full.to_string(), " and ",
                   e.box.full.to_string());
    if (intersect(other.box, e.box))
      return clash("has overlapping slices '", other.box.to_string(), "' and '",
                   e.box.to_string(), "'");
  }
  same.push_back(std::move(e));
  return {};
}

status_or<tensor> checkpoint_reader::lookup(const std::string& name,
                                            std::string_view shape_and_slice, dtype type) const {
  const auto found = entries_.find(name);
  if (found == entries_.end())
    return errors::not_found(where_, plural_ ? " have" : " has", " no tensor named '", name, "'");
  const std::vector<entry>& saved = found->second;
  const tensor_shape& full = saved.front().box.full;
  if (saved.front().value.type() != type)
    return errors::invalid_argument(where_, plural_ ? " hold '" : " holds '", name, "' as ",
                                    dtype_name(saved.front().value.type()), full.to_string(),
                                    ", expected ", dtype_name(type));
  tensor_slice want = whole_slice(full);
  if (!shape_and_slice.empty()) {
    auto parsed = parse_shape_and_slice(shape_and_slice);
    if (!parsed.ok()) return parsed.get_status().with_context("restoring '" + name + "'");
    if (parsed->full != full)
      return errors::invalid_argument("variable '", name, "' has full shape ",
                                      parsed->full.to_string(),
                                      ", but the checkpoint holds it with full shape ",
                                      full.to_string(), " (", where_, ")");
    want = std::move(*parsed);
  }
  // The common case, an unpartitioned variable saved and restored whole, copies nothing.
  if (saved.size() == 1 && !saved.front().sliced && want.covers_all()) return saved.front().value;

  // Coverage first, allocation after: a forged full shape in a file cannot make us allocate
  // more than the saved slices actually hold.
  int64_t covered = 0;
  std::vector<std::string> specs;
  std::vector<std::pair<const entry*, tensor_slice>> parts;
  for (const entry& e : saved) {
    specs.push_back(e.box.to_string());
    if (auto part = intersect(e.box, want)) {
      covered += part->num_elements();
      parts.emplace_back(&e, std::move(*part));
    }
  }
  // Saved slices never overlap (checked by add), so counting elements proves coverage.
  if (covered != want.num_elements())
    return errors::data_loss("the saved slices of '", name, "' (", slices_of(specs), " in ",
                             where_, ") cover ", covered, " of the ", want.num_elements(),
                             " elements of '", want.to_string(), "'");
  tensor out(type, want.shape());
  for (const auto& [e, part] : parts) copy_slice(e->value, e->box, out, want, part);
  return out;
}

}  // namespace caflow
