#!/usr/bin/env bash
# npm run image:test: builds the Dockerfile with buildah and runs the image
# as the README's Docker and Deployment sections say, then checks
#   1. the bundled voices are copied into an empty voice volume owned by
#      10001 (a new named volume), by the entrypoint, as uid 10001;
#   2. /health, /ready and speech (a bundled voice and the built-in one);
#   3. the image's HEALTHCHECK command: passes while the service runs, fails
#      once it is gone;
#   4. SIGTERM: the service stops and the container exits 0;
#   5. the tool server and the reference spawner start from the same image
#      with compose.yaml's entrypoints and answer /healthz;
# and prints the build time and the image size.
#
# No Docker engine is needed. The base images (node:20-bookworm and
# node:20-bookworm-slim) are pulled when a registry is reachable; otherwise
# stand-ins are built from debootstrap (Debian bookworm, from the machine's
# own Debian mirror) plus this machine's node and npm, and tagged with the
# same names. The bundled voices come from VOICES_MIRROR and VOICES_CATALOG:
# the project's own test voices, laid out like the Piper voices repository
# in a git-ignored folder of the build context, so the offline and
# custom-voice build is what gets tested. Behind a TLS-intercepting proxy
# the machine's CA file goes in through BUILD_CA_CERT.
#
# With --build-only it stops once the image is built (npm run compose:test
# builds through it). Needs root, buildah and debootstrap (Debian: apt-get install buildah
# debootstrap). CPU- and disk-heavy (vfs storage keeps a full copy per
# layer): state is kept in $CHORUS_IMAGE_TEST_DIR (default
# /var/tmp/chorus-image-test) so a second run reuses the base images and the
# build caches. Not part of npm test.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${CHORUS_IMAGE_TEST_DIR:-/var/tmp/chorus-image-test}
image=localhost/chorus:image-test
node_major=20
mirror_dir=.image-test/voices-mirror
catalog_file=.image-test/catalog.json
bundled="en_US-probe-medium en_GB-probemulti-medium"

log() { printf 'image-test: %s\n' "$*" >&2; }
die() { log "FAILED: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (buildah with chroot isolation and vfs storage)"
command -v buildah >/dev/null || die "buildah is missing: apt-get install buildah"

mkdir -p "$work"
b() { buildah --root "$work/storage" --runroot "$work/run" --storage-driver vfs "$@"; }
export BUILDAH_ISOLATION=chroot

# shellcheck source=lib/debian-mirror.sh
. "$root/scripts/lib/debian-mirror.sh"

# A minimal Debian bookworm with this machine's node and npm, as an image.
stand_in() {
  local name=$1 rootfs="$work/rootfs-bookworm" mirror ctr mnt npm_dir
  command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
  if [ ! -f "$rootfs/.complete" ]; then
    mirror=$(find_mirror) || true
    [ -n "$mirror" ] || die "no Debian bookworm mirror in /etc/apt/sources.list{,.d}"
    log "debootstrap bookworm (minbase) from the machine's Debian mirror"
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
      || die "debootstrap failed, see $work/debootstrap.log"
    touch "$rootfs/.complete"
  fi
  npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
  ctr=$(b from scratch)
  mnt=$(b mount "$ctr")
  (cd "$rootfs" && tar --exclude=./.complete -cf - .) | (cd "$mnt" && tar -xf -)
  install -D -m 0755 "$(readlink -f "$(command -v node)")" "$mnt/usr/local/bin/node"
  mkdir -p "$mnt/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$mnt/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/local/bin/npx"
  b umount "$ctr" >/dev/null
  b config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node "$ctr"
  b commit --quiet "$ctr" "$name" >/dev/null
  b rm "$ctr" >/dev/null
  log "built the stand-in $name ($(node --version), npm $(npm --version 2>/dev/null))"
}

base_image() {
  local name="docker.io/library/$1"
  if b inspect --type image "$name" >/dev/null 2>&1; then return; fi
  if timeout 120 buildah --root "$work/storage" --runroot "$work/run" --storage-driver vfs pull --quiet "$name" >/dev/null 2>&1; then
    log "pulled $name"
    return
  fi
  log "cannot pull $name: building a stand-in"
  stand_in "$name"
}

# The test voices as a Piper-style mirror with their own catalogue.
voice_mirror() {
  local voices name lang region speaker quality dir entries="" file
  voices=$(cd "$root" && node --import tsx scripts/make-test-voices.ts | sed -n 's/^test voices written to //p')
  [ -d "$voices" ] || die "scripts/make-test-voices.ts wrote no voices"
  rm -rf "${root:?}/$mirror_dir"
  for name in $bundled; do
    lang=${name%%-*}; region=${lang%%_*}
    speaker=${name#*-}; quality=${speaker##*-}; speaker=${speaker%-*}
    dir="$region/$lang/$speaker/$quality"
    mkdir -p "$root/$mirror_dir/$dir"
    local files=""
    for file in "$name.onnx" "$name.onnx.json"; do
      cp "$voices/$file" "$root/$mirror_dir/$dir/$file"
      files="$files${files:+,}\"$dir/$file\": {\"size_bytes\": $(stat -c %s "$voices/$file"), \"md5_digest\": \"$(md5sum < "$voices/$file" | cut -d' ' -f1)\"}"
    done
    entries="$entries${entries:+,}\"$name\": {\"num_speakers\": $(node -e "console.log(JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')).num_speakers ?? 1)" "$voices/$name.onnx.json"), \"files\": {$files}}"
  done
  printf '{%s}\n' "$entries" > "$root/$catalog_file"
}

free_port() { node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close() })"; }

# Waits until url answers (any status), for at most $2 seconds.
wait_for() {
  local url=$1 tries=$(( $2 * 2 ))
  while [ "$tries" -gt 0 ]; do
    curl -s -o /dev/null "$url" && return 0
    sleep 0.5; tries=$(( tries - 1 ))
  done
  return 1
}

# The process ids below $1 (children, grandchildren...).
descendants() {
  local child
  for child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

# The pid of the node process under the buildah run with pid $1.
node_under() {
  local pid
  for pid in $(descendants "$1"); do
    [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = node ] && { echo "$pid"; return 0; }
  done
  return 1
}

cleanup() {
  local pid node_pid
  # Stopping buildah run does not stop its command: stop the command first.
  for pid in ${run_pids:-}; do
    node_pid=$(node_under "$pid") && kill -TERM "$node_pid" 2>/dev/null
    kill "$pid" 2>/dev/null || true
  done
  for ctr in ${containers:-}; do b rm "$ctr" >/dev/null 2>&1 || true; done
  if [ "${passed:-0}" = 1 ]; then rm -rf "$scratch"; elif [ -n "${scratch:-}" ]; then log "logs kept in $scratch"; fi
  rm -rf "${root:?}/.image-test"
}
trap cleanup EXIT
containers=""
run_pids=""
scratch=$(mktemp -d)

# 1. Build.
base_image "node:$node_major-bookworm"
base_image "node:$node_major-bookworm-slim"
voice_mirror
# Behind a TLS-intercepting proxy, the machine's own tools trust its CA
# through NODE_EXTRA_CA_CERTS or npm's cafile: the build gets the same file
# through BUILD_CA_CERT, as the README tells operators to.
ca_args=()
ca=${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}
if [ -n "$ca" ] && [ "$ca" != null ] && [ -f "$ca" ]; then
  cp "$ca" "$root/.image-test/ca.pem"
  ca_args=(--build-arg BUILD_CA_CERT=.image-test/ca.pem)
  log "the build trusts this machine's CA file ($ca)"
fi
log "building the image (buildah, vfs, chroot isolation): slow on a small machine"
started=$(date +%s)
b bud --format docker --layers --pull=never -t "$image" -f "$root/Dockerfile" \
  --build-arg BUNDLED_VOICES="$bundled" \
  --build-arg VOICES_MIRROR="$mirror_dir" \
  --build-arg VOICES_CATALOG="$catalog_file" \
  "${ca_args[@]}" \
  "$root" >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; die "the build failed, see $work/build.log"; }
build_seconds=$(( $(date +%s) - started ))
size=$(b images --format '{{.Size}}' "$image" | head -1)
log "built $image in ${build_seconds}s; size $size"
if [ "${1:-}" = --build-only ]; then passed=1; exit 0; fi

# 2. Run the service as uid 10001 over an empty voice folder owned by 10001.
# buildah run mounts a volume of its own on every path the image declares a
# VOLUME for, over any -v given for that path (what the issue saw as EACCES:
# the copy never reached the host folder); so the host folder goes on
# another path, named by TTS_VOICE_DIR. buildah's own volume on /voices is a
# new named volume's equivalent, checked below.
volume="$scratch/voices"
mkdir -m 0755 "$volume"
chown 10001:10001 "$volume"
port=$(free_port)
ctr=$(b from --pull=never "$image"); containers="$containers $ctr"
b run --user 10001:10001 -v "$volume:/srv/voices" -e TTS_VOICE_DIR=/srv/voices -e TTS_HTTP_HOST=127.0.0.1 -e TTS_HTTP_PORT="$port" \
  "$ctr" -- /app/scripts/docker-entrypoint.sh >"$scratch/serve.log" 2>&1 &
serve_pid=$!; run_pids="$run_pids $serve_pid"
wait_for "http://127.0.0.1:$port/health" 120 || { cat "$scratch/serve.log" >&2; die "the service did not answer /health"; }
log "ok /health"
for name in $bundled; do
  [ "$(stat -c %u "$volume/$name.onnx" 2>/dev/null)" = 10001 ] || die "bundled voice $name was not copied into the volume as 10001"
done
log "ok: the entrypoint copied the bundled voices into an empty folder, owned by 10001"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ready")" = 200 ] || die "/ready is not 200"
log "ok /ready"
for voice in en_US-probe-medium en_US-espeak-low; do
  curl -s --fail-with-body -o "$scratch/$voice.wav" -H 'Content-Type: application/json' \
    -d "{\"text\": \"Hello from the image.\", \"voice\": \"$voice\"}" "http://127.0.0.1:$port/tts" \
    || die "POST /tts with $voice failed: $(cat "$scratch/$voice.wav")"
  # A WAV with samples after its 44-byte header (a test voice speaks briefly).
  [ "$(head -c 4 "$scratch/$voice.wav")" = RIFF ] && [ "$(stat -c %s "$scratch/$voice.wav")" -gt 44 ] \
    || die "POST /tts with $voice did not answer a WAV"
done
log "ok: speech from a bundled voice and the built-in voice"
! grep -q 'Failed to persist telemetry' "$scratch/serve.log" || die "ONNX Runtime's telemetry line is back"

# 3. The HEALTHCHECK the image declares, run as Docker would, in the container.
healthcheck=$(b inspect --type image --format '{{range $i, $a := .Docker.Config.Healthcheck.Test}}{{if eq $i 3}}{{$a}}{{end}}{{end}}' "$image")
[ -n "$healthcheck" ] || die "the image declares no HEALTHCHECK (built without --format docker?)"
b run --user 10001:10001 -e TTS_HTTP_PORT="$port" "$ctr" -- node -e "$healthcheck" || die "HEALTHCHECK fails on a healthy service"
log "ok: HEALTHCHECK passes while the service runs"

# 4. SIGTERM to the service (PID 1 in a real container: the entrypoint execs it).
node_pid=$(node_under "$serve_pid") || die "cannot find the service's node process"
kill -TERM "$node_pid"
status=0; wait "$serve_pid" || status=$?
run_pids=""
[ "$status" = 0 ] || { cat "$scratch/serve.log" >&2; die "exit code $status after SIGTERM, expected 0"; }
grep -q '"msg":"stopped"' "$scratch/serve.log" || die "no clean shutdown in the log"
log "ok: SIGTERM stops the service with exit code 0"
if b run --user 10001:10001 -e TTS_HTTP_PORT="$port" "$ctr" -- node -e "$healthcheck" >/dev/null 2>&1; then die "HEALTHCHECK passes with no service"; fi
log "ok: HEALTHCHECK fails once the service is gone"

# A new named volume on /voices: it takes the image's /voices (owned by
# 10001), so the default TTS_VOICE_DIR works as uid 10001.
fresh=$(b from --pull=never "$image"); containers="$containers $fresh"
b run --user 10001:10001 "$fresh" -- /app/scripts/docker-entrypoint.sh true >"$scratch/named.log" 2>&1 \
  || { cat "$scratch/named.log" >&2; die "the bundled-voice copy into a new /voices volume failed"; }
[ "$(b run "$fresh" -- stat -c %u /voices/en_US-probe-medium.onnx)" = 10001 ] || die "no bundled voice in the new /voices volume"
log "ok: the copy into a new /voices volume, as uid 10001"
# A root-owned but world-writable folder works too.
open_volume="$scratch/open-voices"
mkdir "$open_volume"; chmod 0777 "$open_volume"
b run --user 10001:10001 -v "$open_volume:/srv/voices" -e TTS_VOICE_DIR=/srv/voices "$ctr" -- node /app/dist/src/bin.cjs voices install-bundled >"$scratch/open.log" 2>&1 \
  || { cat "$scratch/open.log" >&2; die "install-bundled into a world-writable root-owned folder failed"; }
[ -f "$open_volume/en_US-probe-medium.onnx" ] || die "install-bundled copied nothing into the world-writable folder"
log "ok: the copy also works into a root-owned world-writable folder"

# 5. The tool server and the reference spawner, with compose.yaml's commands.
spawner_port=$(free_port); tools_port=$(free_port)
state="$scratch/state"; mkdir "$state"; chown 10001:10001 "$state"
b run --user 10001:10001 -v "$state:/state" -e CHORUS_SPAWNER_HOST=127.0.0.1 -e CHORUS_SPAWNER_PORT="$spawner_port" \
  "$ctr" -- node /app/dist/src/bin.cjs spawner --state-file /state/bots.json >"$scratch/spawner.log" 2>&1 &
spawner_pid=$!; run_pids="$run_pids $spawner_pid"
b run --user 10001:10001 -e CHORUS_TOOLS_HOST=127.0.0.1 -e CHORUS_TOOLS_PORT="$tools_port" -e SPAWNER_HOST=127.0.0.1 -e SPAWNER_PORT="$spawner_port" \
  "$ctr" -- /app/scripts/tools-entrypoint.sh >"$scratch/tools.log" 2>&1 &
tools_pid=$!; run_pids="$run_pids $tools_pid"
wait_for "http://127.0.0.1:$spawner_port/healthz" 60 || { cat "$scratch/spawner.log" >&2; die "the spawner did not start"; }
wait_for "http://127.0.0.1:$tools_port/healthz" 60 || { cat "$scratch/tools.log" >&2; die "the tool server did not start"; }
log "ok: the tool server and the reference spawner run from the image"
for pid in $spawner_pid $tools_pid; do
  node_pid=$(node_under "$pid") && kill -TERM "$node_pid"
  status=0; wait "$pid" || status=$?
  [ "$status" = 0 ] || die "exit code $status after SIGTERM from a tools/spawner container"
done
run_pids=""

passed=1
log "PASSED: build ${build_seconds}s, image size $size"
