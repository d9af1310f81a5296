#!/usr/bin/env bash
# Builds the vendored espeak-ng as a static, position-independent library:
#   scripts/build-espeak.sh BUILD_DIR
# leaves BUILD_DIR/src/libespeak-ng/libespeak-ng.a and
# BUILD_DIR/src/ucd-tools/libucd.a. Both builds of the addon (cmake-js via
# CMakeLists.txt, node-gyp via binding.gyp) call this, so the options live in
# one place: everything that would reach for the network or the system
# (sonic, pcaudio, mbrola) or that Chorus does not use (async playback, Klatt,
# speech-player) is off. Setting SONIC_LIB/SONIC_INC keeps espeak-ng's CMake
# from cloning sonic.
set -euo pipefail
build_dir=${1:?usage: build-espeak.sh BUILD_DIR}
source_dir="$(cd "$(dirname "$0")/.." && pwd)/native/third_party/espeak-ng"
[ -f "$source_dir/CMakeLists.txt" ] || { echo "build-espeak: no source in $source_dir (run scripts/fetch-native-deps.sh)" >&2; exit 1; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$source_dir" -B "$build_dir" "${generator[@]}" -Wno-dev \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DCMAKE_C_FLAGS=-w \
  -DBUILD_SHARED_LIBS=OFF \
  -DBUILD_TESTING=OFF \
  -DUSE_LIBSONIC=OFF -DSONIC_LIB=disabled -DSONIC_INC=disabled \
  -DUSE_LIBPCAUDIO=OFF \
  -DUSE_MBROLA=OFF \
  -DUSE_ASYNC=OFF \
  -DUSE_KLATT=OFF \
  -DUSE_SPEECHPLAYER=OFF \
  -DESPEAK_BUILD_MANPAGES=OFF >/dev/null
cmake --build "$build_dir" --target espeak-ng ucd
