#!/usr/bin/env bash
# The programs and libraries the tests need from Debian's archive: Chromium
# (the playground's browser tests), mpg123 (MP3 decoding), faad (AAC
# decoding: libfaad2, a decoder independent of FFmpeg), libavcodec59
# (FFmpeg's AAC encoder, which the addon loads at run time), binutils
# (readelf, nm: what the addon links) and a C compiler (a stand-in library).
# Missing ones are installed when this runs as root with apt-get (the package
# lists are refreshed first when they are empty or over a week old); whatever
# is still missing then fails the run, named, with the command that installs
# it. `npm test` runs this first (pretest), and so does .ci/run: a test that
# needs a tool must never turn into a silent skip.
set -euo pipefail

# "program package" pairs: the program is looked for on PATH.
readonly PROGRAMS=(
  "chromium chromium"
  "mpg123 mpg123"
  "faad faad"
  "readelf binutils"
  "nm binutils"
  "cc gcc"
)

missing_names=()
missing_packages=()
find_missing() {
  missing_names=()
  missing_packages=()
  local entry program package
  for entry in "${PROGRAMS[@]}"; do
    read -r program package <<<"$entry"
    command -v "$program" >/dev/null 2>&1 && continue
    missing_names+=("$program")
    [[ " ${missing_packages[*]} " == *" $package "* ]] || missing_packages+=("$package")
  done
  # The library the addon dlopens by its soname (src/audio/avcodec.ts); read
  # whole first, as grep -q quitting early would fail the pipe.
  local libraries
  libraries=$(ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true)
  if ! grep -q 'libavcodec\.so\.59 ' <<<"$libraries"; then
    missing_names+=(libavcodec.so.59)
    missing_packages+=(libavcodec59)
  fi
}

# Empty lists (a fresh machine) or old ones (packages since replaced) make
# the install fail; a week is old enough to be worth the refresh.
lists_stale() {
  local lists=/var/lib/apt/lists
  [ -z "$(find "$lists" -maxdepth 1 -name '*_Packages*' -print -quit 2>/dev/null)" ] && return 0
  [ -n "$(find "$lists" -maxdepth 1 -name '*_Packages*' -mtime +7 -print -quit 2>/dev/null)" ]
}

# Another apt-get (a second checkout's tests) may hold the lock: wait for it.
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -qq -o DPkg::Lock::Timeout=600 "$@" >&2; }

install_missing() {
  echo "ensure-test-tools: installing from Debian: ${missing_packages[*]}" >&2
  if lists_stale; then apt_get update || echo "ensure-test-tools: apt-get update failed" >&2; fi
  if ! apt_get install -y --no-install-recommends "${missing_packages[@]}"; then
    # Lists a few days old may still name versions the archive has dropped.
    { apt_get update && apt_get install -y --no-install-recommends "${missing_packages[@]}"; } \
      || echo "ensure-test-tools: apt-get install ${missing_packages[*]} failed" >&2
  fi
}

find_missing
[ "${#missing_names[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  install_missing
  find_missing
  [ "${#missing_names[@]}" -eq 0 ] && exit 0
fi
echo "ensure-test-tools: the tests need ${missing_names[*]}, missing here (PATH=$PATH)." >&2
echo "ensure-test-tools: install them with: apt-get install -y ${missing_packages[*]}" >&2
exit 1
