#!/usr/bin/env bash
# Remakes tests/data/tf_export/: caflow writes a graph built with its C++ API as model.pb (and the
# input image.npy), then TensorFlow's side reads it: pb_to_tfjs.js decodes it against
# TensorFlow's message definitions into a TF.js graph model, and run_tfjs.js runs that on TF.js's
# CPU backend, writing the outputs to tests/data/tf_export/tfjs/. tests/graph/tf/
# export_roundtrip_test.cpp then checks that caflow still writes that model.pb and computes
# those outputs.
#   scripts/tfjs_export_check/make_goldens.sh      (after building graph_tf_export_roundtrip_test)
# Needs node and npm, and the npm registry once (npm ci); the test itself needs neither.
set -euo pipefail
cd "$(dirname "$0")"
out=$(cd ../../tests/data/tf_export && pwd)
test_bin=${CAFLOW_BUILD_DIR:-../../build/release}/tests/graph_tf_export_roundtrip_test
[ -x "$test_bin" ] || { echo "make_goldens: build $test_bin first" >&2; exit 1; }
npm ci --no-audit --no-fund --loglevel=error
CAFLOW_EXPORT_DIR="$out" "$test_bin" >/dev/null
work=$(mktemp -d /tmp/caflow_tf_export.XXXXXX)
trap 'rm -rf "$work"' EXIT
node pb_to_tfjs.js "$out/model.pb" "$work"
mkdir -p "$out/tfjs"
node run_tfjs.js "$work/model.json" --input "image=$out/image.npy" --output probabilities \
  --output features --out-dir "$out/tfjs"
