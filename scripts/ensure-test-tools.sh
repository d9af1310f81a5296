#!/usr/bin/env bash
# Test tools from Debian's archive, installed before `npm test` when missing:
# Chromium (the playground's browser test), mpg123 (the MP3 decoding check),
# faad (the AAC decoding check: libfaad2, a decoder independent of FFmpeg)
# and libavcodec59 (FFmpeg's AAC encoder, which the addon loads at run time).
# Only as root with apt-get; otherwise, or if the install fails, the tests
# that need them skip and say how to install them. Never fails the run.
set -uo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v mpg123 >/dev/null 2>&1 || missing+=(mpg123)
command -v faad >/dev/null 2>&1 || missing+=(faad)
# The library the addon dlopens by its soname (src/audio/avcodec.ts).
{ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | grep -q 'libavcodec\.so\.59 ' || missing+=(libavcodec59)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "test tools missing: ${missing[*]} (apt-get install -y ${missing[*]}); the tests that need them will skip" >&2
  exit 0
fi
echo "installing test tools from Debian: ${missing[*]}" >&2
install() { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; }
if ! install; then
  # A fresh machine's package lists may be empty or old.
  apt-get update -qq >/dev/null 2>&1 && install || echo "could not install ${missing[*]}; the tests that need them will skip" >&2
fi
exit 0
