#!/usr/bin/env bash
# Runs the test suite under the sanitizer presets of CMakePresets.json:
#
#   scripts/sanitize.sh [asan|tsan|all] [CTEST ARGS...]        (default: all)
#
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (preset asan, build dir build/asan)
#   tsan  ThreadSanitizer (preset tsan, build dir build/tsan)
#
# Each preset is configured once (RelWithDebInfo, CAFLOW_SANITIZE set, tests on, benchmarks
# and the GPU device off), built, and its tests run with ctest. Extra arguments go to ctest;
# when they select tests (-R/-E/-L...), only the executables of the selected tests are built,
# so one test can be checked without building the whole suite:
#
#   scripts/sanitize.sh asan -R net_wire_wire_tensor_test
#
# Any sanitizer report fails the test (halt_on_error), with a symbolized stack in its output.
# Environment: JOBS (build parallelism, default nproc), CAFLOW_SANITIZE_BUILD_ROOT (where the
# build dirs go, default build/). A full run builds the library and every test twice, with
# instrumentation: expect it to take several times a release build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
which=${1:-all}
(($#)) && shift
case "$which" in
  asan | tsan) presets=("$which") ;;
  all) presets=(asan tsan) ;;
  *) echo "usage: scripts/sanitize.sh [asan|tsan|all] [CTEST ARGS...]" >&2; exit 2 ;;
esac
jobs=${JOBS:-$(nproc)}
build_root=${CAFLOW_SANITIZE_BUILD_ROOT:-$root/build}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_init_order=1:check_initialization_order=1:detect_stack_use_after_return=1}
# CAF 0.17's own leaks at exit, each explained in the file; none names a caflow function.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# libcaf is not instrumented: the file says which races that hides and which stay checked.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$root/scripts/sanitizers/tsan.supp:print_suppressions=0}

# The build targets of the tests that `ctest $@` selects (a test is named for its executable,
# fuzz_<name>_corpus for fuzz_<name>); empty, meaning everything, when there are no arguments
# or some selected test runs something else (a script, an app, a CMake project).
selected_targets() {
  local dir=$1 name target targets=()
  shift
  (($#)) || return 0
  local known
  known=$(ninja -C "$dir" -t targets all 2>/dev/null | sed -n 's/^\([^:]*\):.*/\1/p')
  while read -r name; do
    target=${name%_corpus}
    grep -qx "$target" <<<"$known" || return 0
    targets+=("$target")
  done < <(ctest --test-dir "$dir" -N "$@" | sed -n 's/^ *Test *#[0-9]*: *//p')
  echo "${targets[*]}"
}

status=0
for preset in "${presets[@]}"; do
  dir=$build_root/$preset
  echo "== $preset ($dir)"
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake --preset "$preset" -B "$dir" -DCAFLOW_BUILD_TESTS=ON -DCAFLOW_BUILD_BENCH=OFF \
      -DCAFLOW_CUDA=OFF >/dev/null
  else
    cmake "$dir" >/dev/null  # picks up test files added since, before ctest lists the tests
  fi
  targets=$(selected_targets "$dir" "$@")
  if [ -n "$targets" ]; then
    # shellcheck disable=SC2086  # one word per target
    cmake --build "$dir" -j "$jobs" --target $targets
  else
    cmake --build "$dir" -j "$jobs"
  fi
  ctest --test-dir "$dir" --output-on-failure "$@" || status=1
done
exit $status
