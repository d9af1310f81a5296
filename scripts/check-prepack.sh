#!/usr/bin/env bash
# npm pack's first step. The package carries the built addon and the
# espeak-ng data so that installing it needs no compiler (see
# scripts/install-native.sh); packing without them would ship a package that
# builds from source on every install, so refuse instead.
set -euo pipefail
cd "${0%/*}/.."
for file in build/Release/chorus_native.node native/third_party/espeak-ng-data/phontab; do
  if [ ! -f "$file" ]; then
    echo "chorus: npm pack needs $file: run npm install first (it builds the addon and fetches the espeak-ng data)" >&2
    exit 1
  fi
done
# npm pack skips symbolic links, so linked folders would silently go missing.
for dir in native/third_party native/third_party/espeak-ng-data build build/Release; do
  if [ -L "$dir" ]; then
    echo "chorus: npm pack does not follow the symbolic link $dir: make it a real folder" >&2
    exit 1
  fi
done
# The load-test harness (bench/) stays out of the package ("files" in
# package.json); a build from before it moved out of src/ leaves its old
# output where "files" would still pick it up.
for stale in dist/src/bench dist/scripts/soak.js; do
  if [ -e "$stale" ]; then
    echo "chorus: npm pack found $stale, the harness's output from an older build: rm -rf dist && npm run build" >&2
    exit 1
  fi
done
