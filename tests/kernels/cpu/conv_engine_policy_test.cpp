// The host logic of the GPU convolutions' engine path (kernels/gpu/conv_engine_*.hpp): how
// caflow's buffers are described to cuDNN's backend by dims and strides, its pre/post padding,
// which engines are refused, how candidates are ranked and the CAFLOW_CUDNN_ENGINES switch.
// No CUDA: these run in every build, with or without a GPU.
#include "kernels/gpu/conv_engine_policy.hpp"

#include <doctest/doctest.h>

#include <cstring>

#include "kernels/gpu/conv_engine_layout.hpp"

namespace caflow::gpu {
namespace {

int64_t offset_of(const strided_dims& s, std::array<int64_t, 4> index) {
  int64_t off = 0;
  for (int i = 0; i < 4; ++i) off += index[i] * s.strides[i];
  return off;
}

conv2d_geometry filter_geometry(int64_t rows, int64_t cols, int64_t in_depth, int64_t out_depth) {
  conv2d_geometry g;
  g.filter_rows = rows;
  g.filter_cols = cols;
  g.in_depth = in_depth;
  g.out_depth = out_depth;
  return g;
}

TEST_CASE("NHWC batches are described as N,C,H,W dims with NHWC strides") {
  const strided_dims s = nhwc_strided(2, 3, 4, 5);
  CHECK(s.dims == std::array<int64_t, 4>{2, 5, 3, 4});
  CHECK(s.strides == std::array<int64_t, 4>{60, 1, 20, 5});
  // Every element lands on its NHWC offset.
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t h = 0; h < 3; ++h)
      for (int64_t w = 0; w < 4; ++w)
        for (int64_t c = 0; c < 5; ++c)
          REQUIRE(offset_of(s, {n, c, h, w}) == ((n * 3 + h) * 4 + w) * 5 + c);
}

TEST_CASE("A filter's K,C,R,S description reads caflow's HWIO in place, or a KRSC copy") {
  const int64_t R = 3, S = 2, C = 4, K = 5;
  const conv2d_geometry g = filter_geometry(R, S, C, K);
  const strided_dims hwio = filter_strided(g, filter_layout::hwio);
  const strided_dims krsc = filter_strided(g, filter_layout::krsc);
  CHECK(hwio.dims == std::array<int64_t, 4>{K, C, R, S});
  CHECK(krsc.dims == hwio.dims);
  CHECK(hwio.strides == std::array<int64_t, 4>{1, K, S * C * K, C * K});
  CHECK(krsc.strides == std::array<int64_t, 4>{R * S * C, 1, S * C, C});
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t r = 0; r < R; ++r)
        for (int64_t s = 0; s < S; ++s) {
          // HWIO: [rows, cols, in_depth, out_depth], the [patch, out_depth] matrix.
          REQUIRE(offset_of(hwio, {k, c, r, s}) == ((r * S + s) * C + c) * K + k);
          REQUIRE(offset_of(krsc, {k, c, r, s}) == ((k * R + r) * S + s) * C + c);
        }
  CHECK(std::strcmp(to_string(filter_layout::hwio), "HWIO") == 0);
  CHECK(std::strcmp(to_string(filter_layout::krsc), "KRSC") == 0);
}

TEST_CASE("Pre and post padding give TensorFlow's window starts and count, no copy needed") {
  struct pad_case {
    int64_t in, k, stride;
    conv_padding padding;
    int64_t before, after;  // EXPLICIT's
    int64_t pre, post;
  };
  using enum conv_padding;
  const pad_case cases[] = {
      {3, 2, 1, same, 0, 0, 0, 1},       // SAME's odd zero goes after
      {6, 3, 2, same, 0, 0, 0, 1},       // windows at 0, 2, 4
      {7, 3, 2, same, 0, 0, 1, 1},       // windows at -1, 1, 3, 5
      {28, 5, 1, same, 0, 0, 2, 2},      // the CNN's convolutions
      {8, 3, 2, valid, 0, 0, 0, 0},      // row 7 unused: no negative post padding
      {7, 3, 2, explicit_, 3, 0, 3, 0},  // windows at -3, -1, 1, 3; row 6 unused
      {5, 3, 1, explicit_, 1, 3, 1, 3},
  };
  for (const pad_case& c : cases) {
    CAPTURE(c.in);
    CAPTURE(c.k);
    CAPTURE(c.stride);
    conv2d_params p;
    p.padding = c.padding;
    p.stride_rows = c.stride;
    p.explicit_pads = {c.before, c.after, 0, 0};
    auto g = conv2d_geometry_for(p, tensor_shape{1, c.in, 1, 1}, tensor_shape{c.k, 1, 1, 1});
    REQUIRE_MESSAGE(g.ok(), g.get_status().to_string());
    const pre_post pp =
        backend_padding(g->in_rows, g->filter_rows, g->stride_rows, g->out_rows, g->pad_top);
    CHECK(pp.pre == c.pre);
    CHECK(pp.post == c.post);
  }
  // Over every small geometry: cuDNN's window count over the padded extent is TensorFlow's.
  int checked = 0;
  for (int64_t in = 1; in <= 12; ++in)
    for (int64_t k = 1; k <= 6; ++k)
      for (int64_t stride = 1; stride <= 4; ++stride)
        for (int64_t before = 0; before <= 3; ++before)
          for (int64_t after = 0; after <= 3; ++after)
            for (conv_padding padding : {valid, same, explicit_}) {
              if (padding != explicit_ && (before > 0 || after > 0)) continue;
              conv2d_params p;
              p.padding = padding;
              p.stride_rows = stride;
              p.explicit_pads = {before, after, 0, 0};
              auto g = conv2d_geometry_for(p, tensor_shape{1, in, 1, 1}, tensor_shape{k, 1, 1, 1});
              if (!g.ok() || g->out_rows == 0) continue;
              const pre_post pp = backend_padding(in, k, stride, g->out_rows, g->pad_top);
              REQUIRE(pp.pre == g->pad_top);
              REQUIRE(pp.post >= 0);
              REQUIRE((in + pp.pre + pp.post - k) / stride + 1 == g->out_rows);
              ++checked;
            }
  CHECK(checked > 1000);
}

TEST_CASE("A buffer's promised alignment is the largest power of two dividing it, at most 16") {
  alignas(64) static char buffer[64];
  CHECK(byte_alignment(buffer) == 16);
  CHECK(byte_alignment(buffer + 4) == 4);
  CHECK(byte_alignment(buffer + 8) == 8);
  CHECK(byte_alignment(buffer + 2) == 2);
  CHECK(byte_alignment(buffer + 3) == 1);
  CHECK(byte_alignment(buffer + 32) == 16);
}

TEST_CASE("Engines on tensor cores, down-converting or compiled at run time are refused") {
  using enum engine_note;
  CHECK(refusal_of({}) == nullptr);
  CHECK(refusal_of({other, other}) == nullptr);
  CHECK(std::strcmp(refusal_of({tensor_core}), "runs on tensor cores (TF32 for float32)") == 0);
  CHECK(std::strcmp(refusal_of({other, down_convert_inputs}),
                    "converts its inputs to a narrower type") == 0);
  CHECK(std::strcmp(refusal_of({reduced_precision_reduction}), "reduces in reduced precision") ==
        0);
  CHECK(std::strcmp(refusal_of({runtime_compilation}), "is compiled at run time") == 0);
  CHECK(std::strcmp(refusal_of({requires_reorder}), "needs its operands reordered") == 0);
}

TEST_CASE("The fastest candidate that ran wins, the earliest on a tie") {
  CHECK_FALSE(fastest_candidate({}).has_value());
  CHECK_FALSE(fastest_candidate({{}, {}}).has_value());
  CHECK(fastest_candidate({{2.0f}, {}, {1.5f}, {3.0f}}) == size_t{2});
  CHECK(fastest_candidate({{}, {1.0f}, {1.0f}}) == size_t{1});
  CHECK(fastest_candidate({{0.5f}}) == size_t{0});
}

TEST_CASE("CAFLOW_CUDNN_ENGINES: unset or anything but a 'no' keeps the engine path on") {
  for (const char* on : {static_cast<const char*>(nullptr), "1", "", "yes"}) {
    CAPTURE(on ? on : "(unset)");
    CHECK(parse_engine_switch(on).on);
    CHECK_FALSE(parse_engine_switch(on).log_choices);
  }
  for (const char* off : {"0", "false", "off", "no", "FALSE", "OFF"}) {
    CAPTURE(off);
    CHECK_FALSE(parse_engine_switch(off).on);
    CHECK_FALSE(parse_engine_switch(off).log_choices);
  }
  // "log": on, and every choice said.
  CHECK(parse_engine_switch("log").on);
  CHECK(parse_engine_switch("log").log_choices);
}

}  // namespace
}  // namespace caflow::gpu
