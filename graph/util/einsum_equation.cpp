#include "graph/util/einsum_equation.hpp"

#include <algorithm>
#include <array>
#include <map>

namespace caflow::einsum {
namespace {

bool is_label(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// "...ij" -> ".ij": checks every character and that "..." occurs at most once.
status_or<std::string> parse_term(std::string_view term, std::string_view text) {
  std::string out;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.substr(i, 3) == "...") {
      if (out.find(ellipsis) != std::string::npos)
        return errors::invalid_argument("einsum equation '", text, "': term '", term,
                                        "' has more than one ellipsis");
      out += ellipsis;
      i += 2;
    } else if (is_label(term[i])) {
      out += term[i];
    } else if (term[i] != ' ') {
      return errors::invalid_argument("einsum equation '", text, "': invalid character '",
                                      std::string(1, term[i]), "' in term '", term,
                                      "' (labels are letters, batch dims '...')");
    }
  }
  return out;
}

}  // namespace

status_or<equation> parse(std::string_view text, int num_inputs) {
  if (num_inputs < 1 || num_inputs > 2)
    return errors::unimplemented("einsum with ", num_inputs,
                                 " inputs: only one or two inputs are supported");
  equation eq;
  const size_t arrow = text.find("->");
  const std::string_view lhs = text.substr(0, arrow);
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    CAFLOW_ASSIGN_OR_RETURN(std::string term, parse_term(lhs.substr(start, comma - start), text));
    eq.inputs.push_back(std::move(term));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(eq.inputs.size()) != num_inputs)
    return errors::invalid_argument("einsum equation '", text, "' has ", eq.inputs.size(),
                                    " input terms but the op has ", num_inputs, " inputs");
  if (arrow != std::string_view::npos) {
    const std::string_view rhs = text.substr(arrow + 2);
    if (rhs.find("->") != std::string_view::npos || rhs.find(',') != std::string_view::npos)
      return errors::invalid_argument("einsum equation '", text, "' has more than one output");
    CAFLOW_ASSIGN_OR_RETURN(eq.output, parse_term(rhs, text));
    for (size_t i = 0; i < eq.output.size(); ++i) {
      const char c = eq.output[i];
      if (eq.output.find(c, i + 1) != std::string::npos)
        return errors::invalid_argument("einsum equation '", text, "': output label '",
                                        std::string(1, c == ellipsis ? '.' : c),
                                        "' appears more than once");
      const bool in_input = std::any_of(eq.inputs.begin(), eq.inputs.end(), [&](auto& t) {
        return t.find(c) != std::string::npos;
      });
      if (!in_input && c != ellipsis)
        return errors::invalid_argument("einsum equation '", text, "': output label '",
                                        std::string(1, c), "' is in no input");
    }
    return eq;
  }
  // Implicit output: "..." (if any input has it), then the labels seen exactly once, sorted.
  std::map<char, int> count;
  bool any_ellipsis = false;
  for (const std::string& t : eq.inputs)
    for (char c : t) {
      if (c == ellipsis) any_ellipsis = true;
      else ++count[c];
    }
  if (any_ellipsis) eq.output += ellipsis;
  for (const auto& [c, n] : count)
    if (n == 1) eq.output += c;
  return eq;
}

std::vector<int64_t> plan::output_dims() const {
  std::vector<int64_t> d;
  for (int l : output_labels) d.push_back(label_size[l]);
  return d;
}

status_or<plan> resolve(const equation& eq, const std::vector<std::vector<int64_t>>& input_dims) {
  plan p;
  std::array<int, 128> id;
  id.fill(-1);
  for (const std::string& t : eq.inputs)
    for (char c : t)
      if (c != ellipsis && id[c] < 0) id[c] = p.num_labels++;
  const int first_ellipsis_label = p.num_labels;
  // How many dims each input's ellipsis covers; the ellipsis labels are right-aligned.
  std::vector<int> ellipsis_dims(eq.inputs.size(), 0);
  int ellipsis_rank = 0;
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const std::string& t = eq.inputs[i];
    const int rank = static_cast<int>(input_dims[i].size());
    const bool has = t.find(ellipsis) != std::string::npos;
    const int named = static_cast<int>(t.size()) - (has ? 1 : 0);
    if (has ? rank < named : rank != named)
      return errors::invalid_argument("einsum input ", i, " has rank ", rank, " but its term '",
                                      t == "." ? "..." : t, "' needs ", has ? "at least " : "",
                                      named);
    ellipsis_dims[i] = has ? rank - named : 0;
    ellipsis_rank = std::max(ellipsis_rank, ellipsis_dims[i]);
  }
  const bool output_has_ellipsis = eq.output.find(ellipsis) != std::string::npos;
  if (ellipsis_rank > 0 && !output_has_ellipsis)
    return errors::unimplemented("einsum: the inputs' '...' covers ", ellipsis_rank,
                                 " dims but the output has no '...' (summing over '...' is "
                                 "not supported)");
  p.num_labels += ellipsis_rank;
  p.label_size.assign(p.num_labels, 1);
  std::vector<bool> seen(p.num_labels, false);
  p.input_labels.resize(eq.inputs.size());
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    for (char c : eq.inputs[i]) {
      if (c == ellipsis) {
        for (int e = 0; e < ellipsis_dims[i]; ++e)
          p.input_labels[i].push_back(first_ellipsis_label + ellipsis_rank - ellipsis_dims[i] + e);
      } else {
        p.input_labels[i].push_back(id[c]);
      }
    }
    for (size_t d = 0; d < p.input_labels[i].size(); ++d) {
      const int l = p.input_labels[i][d];
      const int64_t size = input_dims[i][d];
      const bool is_ellipsis = l >= first_ellipsis_label;
      int64_t& known = p.label_size[l];
      if (!seen[l]) {
        known = size;
        seen[l] = true;
        continue;
      }
      if (size < 0) {
        if (is_ellipsis && known == 1) known = -1;  // 1 broadcasts: the unknown size decides
        continue;
      }
      if (known < 0) {
        if (!is_ellipsis || size != 1) known = size;
        continue;
      }
      if (size == known) continue;
      // Batch dims broadcast; letters must agree.
      if (is_ellipsis && (size == 1 || known == 1)) {
        known = std::max(known, size);
        continue;
      }
      std::string name = "...";
      for (const std::string& t : eq.inputs)
        for (char c : t)
          if (c != ellipsis && id[c] == l) name = std::string(1, c);
      return errors::invalid_argument("einsum: label '", name, "' has size ", known,
                                      " in one place and ", size, " in input ", i);
    }
  }
  for (char c : eq.output) {
    if (c == ellipsis) {
      for (int e = 0; e < ellipsis_rank; ++e) p.output_labels.push_back(first_ellipsis_label + e);
    } else {
      p.output_labels.push_back(id[c]);
    }
  }
  return p;
}

}  // namespace caflow::einsum
