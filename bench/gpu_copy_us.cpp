// What one host<->GPU transfer costs the calling thread, by size: copy_to_gpu from pageable
// memory (a value off the wire), copy_to_gpu from what copy_to_host returned (page-locked),
// and copy_to_host, each the median of many calls after a warm-up. A synchronous step moves
// every variable in and every gradient out this way, one tensor at a time, so these per-call
// costs bound how fast a ps-fed GPU worker can step. GPU only: without a GPU it prints one line
// saying why.
//
//   bench_gpu_copy_us [--calls N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "devices/gpu_devices.hpp"

using namespace caflow;

namespace {

template <class F>
double median_us(int calls, F&& f) {
  std::vector<double> us;
  for (int i = 0; i < calls + 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= 3) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::nth_element(us.begin(), us.begin() + static_cast<long>(us.size() / 2), us.end());
  return us[us.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 200;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--calls") calls = std::max(1, std::stoi(argv[i + 1]));
  if (local_gpus().gpus.empty()) {
    std::printf("gpu_copy_us: skipped: no GPU (%s)\n", local_gpus().why_none.c_str());
    return 0;
  }
  auto made = make_local_gpu_devices({.allow_growth = true}, "localhost", 0);
  bench::check(made.ok() && !made->empty(), "no GPU device");
  device& gpu = *made->front();
  for (int64_t floats : {int64_t{10}, int64_t{256}, int64_t{200704}, int64_t{3211264}}) {
    tensor host(dtype::float32, tensor_shape{floats});
    std::fill_n(host.data<float>(), floats, 1.5f);
    auto on = copy_to_gpu(gpu, host);
    bench::check(on.ok(), "copy_to_gpu failed");
    auto back = copy_to_host(gpu, *on);
    bench::check(back.ok(), "copy_to_host failed");
    bench::check(back->data<float>()[floats - 1] == 1.5f, "copy_to_host returned other bytes");
    const double in_pageable = median_us(calls, [&] { bench::check(copy_to_gpu(gpu, host).ok(), "h2d"); });
    const double in_locked = median_us(calls, [&] { bench::check(copy_to_gpu(gpu, *back).ok(), "h2d"); });
    const double out = median_us(calls, [&] { bench::check(copy_to_host(gpu, *on).ok(), "d2h"); });
    const double bytes = static_cast<double>(floats) * 4;
    std::printf("%10.0f bytes: to GPU from pageable %8.1f us, from page-locked %8.1f us, to host "
                "%8.1f us (%.1f GB/s out)\n",
                bytes, in_pageable, in_locked, out, bytes / out / 1e3);
    std::printf("RESULT gpu_copy_%lldB to_gpu_pageable_us=%.1f to_gpu_locked_us=%.1f to_host_us=%.1f\n",
                static_cast<long long>(bytes), in_pageable, in_locked, out);
  }
  return 0;
}
