# caflow_detect_default_arch(<out-var>): "x86-64-v3" (AVX2 + FMA). It probes whether the
# building machine runs AVX-512 code (F, BW, CD, DQ and VL, all that v4 adds) and says so, but
# v4 stays opt-in (see below). Cross builds cannot run the probe.
include(CheckCXXSourceRuns)
function(caflow_detect_default_arch out)
  set(CMAKE_REQUIRED_FLAGS "-march=x86-64-v4")
  set(CMAKE_REQUIRED_QUIET ON)
  # The probe runs AVX-512 instructions itself, so a CPU (or hypervisor) that reports the flags
  # but traps on them also falls back.
  check_cxx_source_runs([=[
    #include <immintrin.h>
    int main() {
      __builtin_cpu_init();
      if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
          !__builtin_cpu_supports("avx512cd") || !__builtin_cpu_supports("avx512dq") ||
          !__builtin_cpu_supports("avx512vl"))
        return 1;
      volatile float in = 2.0f;
      __m512 x = _mm512_set1_ps(in);
      x = _mm512_fmadd_ps(x, x, x);
      return _mm512_reduce_add_ps(x) == 16.0f * 6.0f ? 0 : 1;
    }
  ]=] CAFLOW_HAVE_AVX512)
  # AVX-512 is opt-in (-DCAFLOW_ARCH=x86-64-v4) for now: a v4 build with GCC 12 fails one test
  # that passes with v3. kernels_segment_test's int64 UnsortedSegmentSum gets ids {1,1,1,1}
  # for the {1,1,1,0} the test builds (printed inside the kernel), so the values go wrong
  # before the kernel runs; the same copy loop compiled alone is correct. Until that is
  # understood, the default stays on the tested v3. (The other v4 failure, Sqrt, is fixed:
  # sqrt packets use the correctly rounded instructions, kernels/cpu/cwise_unary.cpp.)
  set(arch "x86-64-v3")
  if(CAFLOW_HAVE_AVX512)
    message(STATUS "caflow: this machine runs AVX-512; -DCAFLOW_ARCH=x86-64-v4 uses it "
                   "(faster GEMMs; see cmake/detect_arch.cmake for its two known test failures)")
  endif()
  message(STATUS "caflow: CAFLOW_ARCH defaults to ${arch}")
  set(${out} "${arch}" PARENT_SCOPE)
endfunction()
