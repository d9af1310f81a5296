#!/usr/bin/env bash
# The engine's tests against an address- and undefined-behaviour-sanitized
# build of the addon. The sanitized build goes to build-asan/; for the run it
# takes the place of build/Release/chorus_native.node (the normal build is put
# back afterwards, whatever happens), since the addon's loader looks there.
#   npm run test:asan [-- test files]     (default: test/engine/*.test.ts)
set -euo pipefail
cd "$(dirname "$0")/.."
# espeak-ng and LAME are not instrumented: the normal build's archives serve
# (CHORUS_DEPS_DIR in CMakeLists.txt; ninja finds them up to date).
npx cmake-js compile --release --out build-asan --CDCHORUS_SANITIZE=ON --CDCHORUS_DEPS_DIR="$PWD/build"
addon=build/Release/chorus_native.node
backup=$(mktemp --suffix=.node)
cp "$addon" "$backup"
# --remove-destination: a new file, never a rewrite of the one that running
# processes have mapped.
trap 'cp --remove-destination "$backup" "$addon"; rm -f "$backup"' EXIT
cp --remove-destination build-asan/Release/chorus_native.node "$addon"
# Node itself is not instrumented: the runtime must be loaded first. Leak
# checking is off because V8 and ONNX Runtime keep process-lifetime
# allocations on purpose; any other error stops the run.
export LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
if [ "$#" -eq 0 ]; then set -- test/engine/*.test.ts test/pool/broken-voices.test.ts; fi
npx tap "$@"
