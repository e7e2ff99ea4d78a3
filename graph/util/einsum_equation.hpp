#pragma once
// Einsum equations as a contract, shared by the op's shape function, its CPU kernel and its
// gradient: parsing ("ij,jk->ik", "...ij,...jk->...ik", implicit "ij,jk") and resolving the
// labels against the inputs' dims.
//
// Supported: one or two inputs; letters as labels; one "..." per term standing for broadcast
// batch dims (right-aligned across inputs, as numpy); a label repeated within an input
// (a diagonal, "ii->i"). Labels absent from the output are summed. Without "->" the output is
// "..." followed by the labels that occur exactly once, in alphabetical order (numpy's rule).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow::einsum {

// The ellipsis is stored as this one character inside the terms.
inline constexpr char ellipsis = '.';

struct equation {
  std::vector<std::string> inputs;  // one term per input: letters and at most one '.'
  std::string output;
};

// Errors say what is wrong with the equation (callers add the node's name).
status_or<equation> parse(std::string_view text, int num_inputs);

// The equation applied to concrete or partly known dims (-1: unknown). Labels are numbered:
// the letters in order of first appearance, then the ellipsis dims (ellipsis_rank of them).
struct plan {
  int num_labels = 0;
  std::vector<int64_t> label_size;             // -1 when unknown
  std::vector<std::vector<int>> input_labels;  // per input, the label of each dim
  std::vector<int> output_labels;              // the label of each output dim
  std::vector<int64_t> output_dims() const;
};

// Checks that every input's rank fits its term and that the sizes a label takes agree
// (ellipsis dims broadcast: 1 stretches). Unknown ranks are not allowed here.
status_or<plan> resolve(const equation& eq, const std::vector<std::vector<int64_t>>& input_dims);

}  // namespace caflow::einsum
