#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs the whole test suite through CTest.
#   scripts/test.sh [preset]      preset: release (default), debug, asan, tsan
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
scripts/setup.sh "$preset"
jobs=$(nproc 2>/dev/null || echo 2)
ctest --preset "$preset" -j "$jobs"
