# caflow_detect_default_arch(<out-var>): "x86-64-v4" when the building machine runs AVX-512 code
# (F, BW, CD, DQ and VL, all that v4 adds), else "x86-64-v3" (AVX2 + FMA). Cross builds cannot
# run the probe and get v3.
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
  # v4 where the probe runs: Eigen's GEMMs use 16-wide registers and twice as many of them.
  # Packages meant for other machines (a GPU host's CPU may lack AVX-512) pass
  # -DCAFLOW_ARCH=x86-64-v3.
  set(arch "x86-64-v3")
  if(CAFLOW_HAVE_AVX512)
    set(arch "x86-64-v4")
  endif()
  message(STATUS "caflow: CAFLOW_ARCH defaults to ${arch}")
  set(${out} "${arch}" PARENT_SCOPE)
endfunction()

# caflow_wide_constant_flags(<arch> <out-var>): compiler flags that keep GCC from miscompiling
# 256- and 512-bit integer constants for <arch>, empty where the compiler gets them right.
#
# GCC 12 (seen with 12.2, -march=x86-64-v4) copies a 32- or 64-byte constant (an initializer
# list, a struct literal) as one wide integer and, with AVX-512, may load that integer as a
# broadcast of its first 64-bit word. Its check that every word is equal runs only over the
# words the constant stores, and a wide constant drops its high words when they are zero (or
# sign copies), so {1, 1, 1, 0} becomes {1, 1, 1, 1}: std::vector<int64_t>{1, 1, 1, 0} held
# four ones. Capping by-pieces moves and stores at 16 bytes keeps every such constant at 128 bits,
# where a value short of its high word is a plain 64-bit constant and never reaches that path.
# Explicit vector code (Eigen's packets) and the loop vectorizer are unaffected.
# The probe compiles the copy for <arch> and runs it; a cross build, which cannot run it, takes
# the flags with GCC (they cost nothing measurable).
function(caflow_wide_constant_flags arch out)
  set(flags "")
  # The broadcast came with GCC 12, and so did the two flags (older GCCs reject them).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND arch MATCHES "^(x86-64-v4|native)$")
    string(MAKE_C_IDENTIFIER "CAFLOW_WIDE_CONSTANTS_OK_${arch}" ok_var)
    set(CMAKE_REQUIRED_FLAGS "-O2 -march=${arch}")
    set(CMAKE_REQUIRED_QUIET ON)
    check_cxx_source_runs([=[
      #include <cstdint>
      #include <cstring>
      __attribute__((noinline)) void copy4(int64_t* p) {
        const int64_t a[4] = {1, 1, 1, 0};
        std::memcpy(p, a, sizeof a);
      }
      __attribute__((noinline)) void copy8(int64_t* p) {
        const int64_t a[8] = {2, 2, 2, 2, 2, 2, 0, 0};
        std::memcpy(p, a, sizeof a);
      }
      int main() {
        int64_t p[4], q[8];
        copy4(p);
        copy8(q);
        return p[3] == 0 && q[6] == 0 && q[7] == 0 ? 0 : 1;
      }
    ]=] ${ok_var})
    if(NOT ${ok_var})
      # Only for GCC users of the installed package: another compiler may not know the flags.
      set(flags $<$<CXX_COMPILER_ID:GNU>:-mmove-max=128> $<$<CXX_COMPILER_ID:GNU>:-mstore-max=128>)
      message(STATUS "caflow: ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} miscompiles "
                     "wide integer constants for ${arch}; building with -mmove-max=128 "
                     "-mstore-max=128 (cmake/detect_arch.cmake)")
    endif()
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()
