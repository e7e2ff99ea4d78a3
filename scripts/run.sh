#!/usr/bin/env bash
# Sets up and builds, then runs the main job: caflow-train, which by default starts an embedded
# cluster (1 ps, 2 workers) in one process, trains the MLP on Fashion-MNIST with synchronous
# replicas and prints the test accuracy. Arguments go to caflow-train (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
exec build/release/apps/caflow-train "$@"
