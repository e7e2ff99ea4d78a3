#!/usr/bin/env bash
# Remakes caflow's TF.js goldens (tests/data/tfjs/) from the model cache that
# scripts/fetch_models.sh fills, with the TF.js versions pinned in package-lock.json:
#   scripts/tfjs_reference/make_goldens.sh
# Needs node and npm, and the npm registry once (npm ci); the tests themselves need neither.
set -euo pipefail
cd "$(dirname "$0")"
cache=${CAFLOW_MODEL_CACHE:-$HOME/.cache/caflow/models}
out=../../tests/data/tfjs
npm ci --no-audit --no-fund --loglevel=error
for m in posenet mobileface emotion; do
  node make_goldens.js "$cache/human-models/$m.json" "$out/$m"
done
# A TF1 while loop over TensorArrays around NonMaxSuppressionV3, on a 128 x 128 uint8 image.
node make_goldens.js "$cache/human-models/faceboxes.json" "$out/faceboxes" image_tensor=1,128,128,3
# nsfwjs is read in its shipped JS-module form here, so that caflow's reading of the converted
# model.json is checked against an independent one.
node make_goldens.js "$cache/nsfwjs/mobilenet_v2_mid/model.min.js" "$out/nsfwjs_mobilenet_v2_mid"
