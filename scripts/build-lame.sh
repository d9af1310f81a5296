#!/usr/bin/env bash
# Builds the vendored LAME encoder library as a static, position-independent
# archive:
#   scripts/build-lame.sh BUILD_DIR
# leaves BUILD_DIR/libmp3lame/.libs/libmp3lame.a. Both builds of the addon
# (cmake-js via CMakeLists.txt, node-gyp via binding.gyp) call this, so the
# options live in one place: the library only (no front end, no decoder, no
# analyser hooks), built out of the source tree with LAME's own configure.
set -euo pipefail
build_dir=${1:?usage: build-lame.sh BUILD_DIR}
source_dir="$(cd "$(dirname "$0")/.." && pwd)/native/third_party/lame"
[ -x "$source_dir/configure" ] || { echo "build-lame: no source in $source_dir (run scripts/fetch-native-deps.sh)" >&2; exit 1; }
mkdir -p "$build_dir"
cd "$build_dir"
if [ ! -f Makefile ]; then
  "$source_dir/configure" --disable-shared --enable-static --with-pic \
    --disable-frontend --disable-decoder --disable-analyzer-hooks --disable-gtktest \
    --disable-dependency-tracking CFLAGS="-O2 -w" >/dev/null 2>&1 \
    || { echo "build-lame: configure failed, see $build_dir/config.log" >&2; exit 1; }
fi
# Quiet unless it fails; then the same make again shows why.
make -C libmp3lame -j"$(nproc)" >/dev/null 2>&1 || make -C libmp3lame
