#!/usr/bin/env bash
# Sets up and builds, then runs the main job. For now that is the example graph app; the
# distributed Fashion-MNIST trainer replaces it when it lands.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
exec build/release/apps/caflow-example "$@"
