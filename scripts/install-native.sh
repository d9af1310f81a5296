#!/usr/bin/env bash
# npm's `install` step for Chorus. In a clone it fetches the pinned
# third-party inputs and builds the addon. A packed Chorus (npm pack) already
# carries the addon that prepack checked and the espeak-ng data, so when it is
# installed as a dependency and that addon loads here, nothing is built: no
# compiler, cmake or apt needed. Only bash builtins and node are used on that
# path, so it also works with a PATH that has nothing else.
set -euo pipefail
cd "${0%/*}/.."

# npm sets npm_package_json to this package's package.json and
# npm_config_local_prefix to the project being installed into: they differ
# only when Chorus is someone else's dependency.
as_dependency=0
if [ -n "${npm_package_json:-}" ] && [ -n "${npm_config_local_prefix:-}" ] \
   && [ "${npm_package_json%/package.json}" != "$npm_config_local_prefix" ]; then
  as_dependency=1
fi

if [ "$as_dependency" = 1 ] && [ -f build/Release/chorus_native.node ] \
   && [ -f native/third_party/espeak-ng-data/phontab ]; then
  # Built for another system (other CPU, older C library)? Then build here.
  if node -e "require('./build/Release/chorus_native.node')" 2>/dev/null; then
    echo "chorus: using the prebuilt native addon shipped in the package"
    exit 0
  fi
  echo "chorus: the prebuilt native addon does not load on this system; building it" >&2
fi

bash scripts/fetch-native-deps.sh
cmake-js compile --release
