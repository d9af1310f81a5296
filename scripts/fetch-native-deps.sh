#!/usr/bin/env bash
# Fetches the pinned third-party inputs of the native addon into
# native/third_party/ (git-ignored), verifies each by sha256, and unpacks them:
#   - espeak-ng 1.52.0 source (Debian trixie 1.52.0+dfsg-5) with Debian's
#     "piper" patch, which adds espeak_TextToPhonemesWithTerminator;
#   - espeak-ng-data compiled by Debian bookworm (1.51+dfsg-10+deb12u2): the
#     phoneme rules Piper's voices were trained with (see README);
#   - ONNX Runtime C/C++ headers (libonnxruntime-dev 1.21.0+dfsg-1, trixie);
#   - LAME 3.100 source (Debian 3.100-6, in bookworm and trixie), the MP3
#     encoder (libmp3lame, LGPL-2.0-or-later). Debian's patches touch only the
#     front end, documentation and packaging, so the upstream tarball is used.
#   - FFmpeg 5.1's libavcodec and libavutil headers (Debian 12's
#     libavcodec-dev and libavutil-dev 7:5.1.9-0+deb12u1), for the AAC
#     encoder the addon loads at run time (native/avcodec_runtime.h): headers
#     only, nothing of FFmpeg is linked or shipped.
#
# Packages come from Debian's archive through apt, run with a private state
# folder and a sources list built from the machine's own apt sources (same
# mirror, other suites), so nothing system-wide changes and no host name is
# written here. Needs: apt-get, dpkg-deb, patch, tar, sha256sum. No root.
# Re-running is cheap: verified downloads are kept and reused.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
third_party="$root/native/third_party"
downloads="$third_party/downloads"
apt_dir="$third_party/apt"
stamp="$third_party/.complete-v1"
# Inputs added later get their own stamp, so a checkout prepared before them
# gains them without its earlier inputs being unpacked again.
lame_stamp="$third_party/.complete-lame-v1"
ffmpeg_stamp="$third_party/.complete-ffmpeg-v1"

# Pins: package=version, file name, sha256.
espeak_src_version="1.52.0+dfsg-5"
ort_dev_version="1.21.0+dfsg-1"
espeak_data_version="1.51+dfsg-10+deb12u2"
lame_src_version="3.100-6"
ffmpeg_dev_version="7:5.1.9-0+deb12u1"
declare -A sha256=(
  ["espeak-ng_1.52.0+dfsg.orig.tar.gz"]="d2a886bae3547a15c52801cb37e415230834a7ee7f9a57352b98d60454d97cea"
  ["espeak-ng_1.52.0+dfsg-5.debian.tar.xz"]="d253d81d2815194e2c13c1af77b6761c43db48848ca423430b4a8c416359b813"
  ["espeak-ng_1.52.0+dfsg-5.dsc"]="8d79bd4d12db56461ff02f7e7a4ba78b6c37b3c4cdbceefcf75cd76029883680"
  ["libonnxruntime-dev_1.21.0+dfsg-1_amd64.deb"]="14f7d959d5deacbcf1504830d4189f91fc67382b399ed9ae9d3aa9c4050ced08"
  ["espeak-ng-data_1.51+dfsg-10+deb12u2_amd64.deb"]="573f5661c6a5adcf949018baad158c4c773bf5579390ee5235a890f1cd694106"
  ["lame_3.100.orig.tar.gz"]="ddfe36cab873794038ae2c1210557ad34857a4b6bdc515785d1da9e175b1da1e"
  ["lame_3.100-6.debian.tar.xz"]="35c6af528d139737c8beede450ad99fe0c1f1764455d23321038b5c4a2b4574c"
  ["lame_3.100-6.dsc"]="6a402771625fa80785a2b904697ba9c7e74a1ee4fa536354e9e88f08e2a4073b"
  ["libavcodec-dev_7%3a5.1.9-0+deb12u1_amd64.deb"]="ee5926a8ef6da734191d65cc1cdb2aefbf26635e8e935721e0082c2ee3d24678"
  ["libavutil-dev_7%3a5.1.9-0+deb12u1_amd64.deb"]="e308a11ba63e7b6a3daf730acd894f05140822f381d6d072dec63ff923cdd6c6"
)

log() { printf 'fetch-native-deps: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [ -f "$stamp" ] && [ -f "$lame_stamp" ] && [ -f "$ffmpeg_stamp" ]; then
  log "third-party inputs already prepared in $third_party"
  exit 0
fi

[ "$(uname -m)" = "x86_64" ] || die "only x86_64 is pinned so far (found $(uname -m))"
for tool in apt-get dpkg-deb patch tar sha256sum; do
  command -v "$tool" >/dev/null || die "'$tool' is required (Debian/Ubuntu build host)"
done

verified() {
  local file="$downloads/$1"
  [ -f "$file" ] && [ "$(sha256sum "$file" | cut -d' ' -f1)" = "${sha256[$1]}" ]
}

all_verified() {
  local name
  for name in "${!sha256[@]}"; do verified "$name" || return 1; done
}

# find_mirror: the machine's Debian mirror (shared with scripts/image-test.sh).
# shellcheck source=lib/debian-mirror.sh
. "$root/scripts/lib/debian-mirror.sh"

fetch() {
  local mirror keyring
  mirror=$(find_mirror) || true
  [ -n "$mirror" ] || die "no Debian bookworm mirror found in /etc/apt/sources.list{,.d}"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -f "$keyring" ] || die "$keyring is missing (package debian-archive-keyring)"
  log "using the machine's Debian mirror for suites trixie and bookworm"

  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$downloads"
  cat > "$apt_dir/sources.list" <<EOF
deb [signed-by=$keyring] $mirror trixie main
deb-src [signed-by=$keyring] $mirror trixie main
deb [signed-by=$keyring] $mirror bookworm main
EOF
  local apt_opts=(
    -o "Dir::State=$apt_dir"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::State::status=/dev/null"
    -o "Dir::Cache=$apt_dir/cache"
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::Etc::Preferences=/dev/null"
    -o "Dir::Etc::PreferencesParts=/dev/null"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=$(id -un)"
    -o "Acquire::Retries=3"
    -qq
  )
  apt-get "${apt_opts[@]}" update
  (
    cd "$downloads"
    apt-get "${apt_opts[@]}" download \
      "libonnxruntime-dev=$ort_dev_version" "espeak-ng-data=$espeak_data_version" \
      "libavcodec-dev=$ffmpeg_dev_version" "libavutil-dev=$ffmpeg_dev_version"
    apt-get "${apt_opts[@]}" source --download-only "espeak-ng=$espeak_src_version"
    apt-get "${apt_opts[@]}" source --download-only "lame=$lame_src_version"
  )
}

if ! all_verified; then
  fetch
  for name in "${!sha256[@]}"; do
    verified "$name" || die "$name is missing or its sha256 differs from the pin"
  done
fi
log "all downloads match their sha256 pins"

unpack_lame() {
  rm -rf "$third_party/lame"
  mkdir -p "$third_party/lame"
  tar -xzf "$downloads/lame_3.100.orig.tar.gz" -C "$third_party/lame" --strip-components=1
  touch "$lame_stamp"
  log "prepared the LAME source in $third_party/lame"
}

# FFmpeg's headers only: the static libraries and the rest of the packages stay out.
unpack_ffmpeg() {
  local deb="$third_party/deb-ffmpeg" name
  rm -rf "$third_party/ffmpeg" "$deb"
  mkdir -p "$third_party/ffmpeg/include"
  for name in libavcodec libavutil; do
    dpkg-deb -x "$downloads/$name-dev_${ffmpeg_dev_version/:/%3a}_amd64.deb" "$deb"
    mv "$deb/usr/include/x86_64-linux-gnu/$name" "$third_party/ffmpeg/include/$name"
  done
  rm -rf "$deb"
  touch "$ffmpeg_stamp"
  log "prepared FFmpeg's libavcodec and libavutil headers in $third_party/ffmpeg"
}

if [ -f "$stamp" ]; then
  [ -f "$lame_stamp" ] || unpack_lame
  [ -f "$ffmpeg_stamp" ] || unpack_ffmpeg
  exit 0
fi

# espeak-ng source + Debian's piper patch.
rm -rf "$third_party/espeak-ng" "$third_party/debian-espeak-ng"
mkdir -p "$third_party/espeak-ng" "$third_party/debian-espeak-ng"
tar -xzf "$downloads/espeak-ng_1.52.0+dfsg.orig.tar.gz" -C "$third_party/espeak-ng" --strip-components=1
tar -xJf "$downloads/espeak-ng_1.52.0+dfsg-5.debian.tar.xz" -C "$third_party/debian-espeak-ng"
patch -d "$third_party/espeak-ng" -p1 --quiet < "$third_party/debian-espeak-ng/debian/patches/piper"

# Compiled espeak-ng data (all languages) from bookworm.
rm -rf "$third_party/espeak-ng-data" "$third_party/deb"
mkdir -p "$third_party/deb"
dpkg-deb -x "$downloads/espeak-ng-data_1.51+dfsg-10+deb12u2_amd64.deb" "$third_party/deb/data"
mv "$third_party/deb/data/usr/lib/x86_64-linux-gnu/espeak-ng-data" "$third_party/espeak-ng-data"

# ONNX Runtime headers only; the library itself comes from onnxruntime-node.
rm -rf "$third_party/onnxruntime"
dpkg-deb -x "$downloads/libonnxruntime-dev_1.21.0+dfsg-1_amd64.deb" "$third_party/deb/ort"
mkdir -p "$third_party/onnxruntime"
mv "$third_party/deb/ort/usr/include/onnxruntime" "$third_party/onnxruntime/include"
rm -rf "$third_party/deb"

touch "$stamp"
log "prepared espeak-ng source, espeak-ng-data and ONNX Runtime headers in $third_party"
unpack_lame
unpack_ffmpeg
