// Refuses to start on a CPU that cannot run the instructions libcaflow was compiled for
// (CAFLOW_ARCH, e.g. x86-64-v4 = AVX-512), with a message that says what to rebuild with,
// instead of a SIGILL somewhere inside the first GEMM. A binary built on an AVX-512 machine and
// copied to a host without it (a GPU pack) is the case this is for.
//
// This file alone is compiled for the baseline x86-64 (CMakeLists.txt sets its flags), and its
// constructor runs before every other static initializer of the library (priority 101), so no
// instruction the host lacks can run before the check.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(CAFLOW_CHECK_ARCH) && (defined(__x86_64__) || defined(__i386__))
namespace {

bool cpu_runs(const char* arch) {
  __builtin_cpu_init();
  if (std::strcmp(arch, "x86-64-v2") == 0) return __builtin_cpu_supports("x86-64-v2");
  if (std::strcmp(arch, "x86-64-v3") == 0) return __builtin_cpu_supports("x86-64-v3");
  if (std::strcmp(arch, "x86-64-v4") == 0) return __builtin_cpu_supports("x86-64-v4");
  return true;  // an -march this check does not know (native, a CPU name): not checked
}

__attribute__((constructor(101))) void check_cpu_runs_caflow_arch() {
  if (cpu_runs(CAFLOW_CHECK_ARCH)) return;
  std::fprintf(stderr,
               "caflow: this build of libcaflow uses %s instructions (CAFLOW_ARCH), which this "
               "CPU does not run; rebuild with -DCAFLOW_ARCH=x86-64-v3 (AVX2) for portable "
               "binaries\n",
               CAFLOW_CHECK_ARCH);
  std::_Exit(70);  // EX_SOFTWARE; nothing else of the library has run
}

}  // namespace
#endif
