#!/usr/bin/env bash
# npm run scale:test: brings compose.scale.yaml up with podman-compose (two
# TTS replicas, two tool servers, the reference spawner, HAProxy in front),
# attacks it with scripts/scale-test-client.ts and tears it down:
#   1. the images: Chorus's as npm run compose:test has it (built by
#      scripts/image-test.sh --build-only unless present;
#      CHORUS_SCALE_REBUILD=1 forces), the proxy's from
#      deploy/haproxy/Containerfile on the same Debian base (tagged with the
#      Containerfile's hash: rebuilt only when it changes); the proxy's
#      configuration checked by `haproxy -c` in that image;
#   2. eight Piper-architecture stand-in voices (scripts/make-scale-voices.ts,
#      ~15 MB) in one folder that both replicas mount, and the same folder
#      served by a service on the host, to compare durations with;
#   3. affinity, MCP sessions across the tool servers, SIGKILL to a TTS
#      replica under load, a rolling restart under load (figures printed);
#   4. `podman-compose down`, the volumes and the host service gone, pass or fail.
# Run it under `flock /tmp/chorus-bench.lock` beside other heavy work. Needs
# what npm run compose:test needs (root, podman, podman-compose, buildah,
# debootstrap, netavark, aardvark-dns, runc, iptables). Not part of npm test.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${CHORUS_IMAGE_TEST_DIR:-/var/tmp/chorus-image-test}
image=localhost/chorus:image-test
project=chorus-scale-test
voices_dir="$work/scale-voices"

log() { printf 'scale-test: %s\n' "$*" >&2; }
die() { log "FAILED: $*"; exit 1; }

# shellcheck source=lib/podman-env.sh
source "$root/scripts/lib/podman-env.sh"
podman_env

host_pid=""
compose() { (cd "$scratch/project" && podman-compose -p "$project" -f compose.scale.yaml "$@"); }
cleanup() {
  local status=$?
  [ -n "$host_pid" ] && kill "$host_pid" 2>/dev/null && wait "$host_pid" 2>/dev/null
  if [ -d "$scratch/project" ]; then
    compose down >"$scratch/down.log" 2>&1 || true
    podman volume rm -f "${project}_spawner-state" >/dev/null 2>&1 || true
  fi
  if [ "$status" = 0 ]; then rm -rf "$scratch"; else log "logs kept in $scratch"; fi
}
trap cleanup EXIT

# 1. The images.
if [ "${CHORUS_SCALE_REBUILD:-0}" = 1 ] || ! podman image exists "$image"; then
  log "building $image with scripts/image-test.sh --build-only"
  bash "$root/scripts/image-test.sh" --build-only
fi
podman image exists "$image" || die "$image is not in $work/storage after the build"
proxy_image="localhost/chorus-proxy:$(sha256sum "$root/deploy/haproxy/Containerfile" | cut -c1-12)"
if ! podman image exists "$proxy_image"; then
  log "building $proxy_image (Debian's haproxy on the image's base)"
  BUILDAH_ISOLATION=chroot buildah --root "$work/storage" --runroot "$work/run" --storage-driver vfs \
    bud --format docker --pull=never --build-arg BASE=docker.io/library/node:20-bookworm-slim \
    -t "$proxy_image" -f "$root/deploy/haproxy/Containerfile" "$root/deploy/haproxy" >"$scratch/proxy-build.log" 2>&1 \
    || { tail -20 "$scratch/proxy-build.log" >&2; die "the proxy image did not build"; }
fi
podman run --rm --network none -v "$root/deploy/haproxy/haproxy.cfg:/c.cfg:ro" --entrypoint haproxy "$proxy_image" -c -f /c.cfg >"$scratch/haproxy-check.log" 2>&1 \
  || { cat "$scratch/haproxy-check.log" >&2; die "haproxy -c refused deploy/haproxy/haproxy.cfg"; }
log "ok: images $image and $proxy_image; haproxy -c accepts the configuration"

# 2. The voices, and the service on the host that durations are compared with.
voices=$(cd "$root" && node --import tsx scripts/make-scale-voices.ts "$voices_dir" | paste -sd, -)
chmod -R a+rX "$voices_dir"
log "voices: $voices ($(du -sh "$voices_dir" | cut -f1))"
free_port() { node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close() })"; }
host_port=$(free_port)
(cd "$root" && npm run build --silent)
TTS_HTTP_HOST=127.0.0.1 TTS_HTTP_PORT="$host_port" TTS_VOICE_DIR="$voices_dir" TTS_DEFAULT_VOICE=en_US-espeak-low \
  TTS_CACHE_BYTES=0 TTS_WORKERS_PER_VOICE=1 CHORUS_INSTALL_BUNDLED=0 CHORUS_LOG_LEVEL=warn \
  node "$root/dist/src/bin.cjs" serve >"$scratch/host-service.log" 2>&1 &
host_pid=$!

# 3. The stack, from a copy of its files.
mkdir -p "$scratch/project/deploy"
cp "$root/compose.scale.yaml" "$scratch/project/"
cp -r "$root/deploy/haproxy" "$scratch/project/deploy/"
spawner_token=$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")
tools_token=$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")
printf 'SPAWNER_TOKEN=%s\nCHORUS_TOOLS_TOKEN=%s\n' "$spawner_token" "$tools_token" > "$scratch/project/deploy/compose.env"
# No voice loads before it is asked for (the built-in default needs none),
# no cache to hide the work, one worker per voice on this small machine.
printf 'TTS_DEFAULT_VOICE=en_US-espeak-low\nTTS_WORKERS_PER_VOICE=1\nTTS_CACHE_BYTES=0\nCHORUS_INSTALL_BUNDLED=0\n' > "$scratch/project/deploy/tts.env"
tts_port=$(free_port); tools_port=$(free_port); a_port=$(free_port); b_port=$(free_port); ta_port=$(free_port); tb_port=$(free_port)
export CHORUS_IMAGE="$image" CHORUS_PROXY_IMAGE="$proxy_image" CHORUS_VOICES="$voices_dir" \
  CHORUS_TTS_PORT="$tts_port" CHORUS_TOOLS_PORT="$tools_port" CHORUS_TTS_A_PORT="$a_port" CHORUS_TTS_B_PORT="$b_port" \
  CHORUS_TOOLS_A_PORT="$ta_port" CHORUS_TOOLS_B_PORT="$tb_port"
compose down >/dev/null 2>&1 || true
started=$(date +%s)
compose up -d --no-build >"$scratch/up.log" 2>&1 || { tail -30 "$scratch/up.log" >&2; die "podman-compose up failed"; }

status_of() { curl -s -o /dev/null -w '%{http_code}' "$1" || true; }
wait_status() {
  local url=$1 deadline=$(( $(date +%s) + $2 ))
  until [ "$(status_of "$url")" = 200 ]; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 1
  done
}
for url in "http://127.0.0.1:$a_port/ready" "http://127.0.0.1:$b_port/ready" "http://127.0.0.1:$tts_port/ready" "http://127.0.0.1:$tools_port/healthz" "http://127.0.0.1:$host_port/ready"; do
  wait_status "$url" 300 || { for s in tts-a tts-b proxy tools-a; do podman logs "${project}_${s}_1" 2>&1 | tail -8 >&2; done; tail -5 "$scratch/host-service.log" >&2; die "$url never answered 200"; }
done
log "ok: stack up in $(( $(date +%s) - started )) s: proxy on $tts_port (speech) and $tools_port (tools); tts-a on $a_port, tts-b on $b_port"

# 4. As clients, then the attacks.
client() {
  (cd "$root" && node --import tsx scripts/scale-test-client.ts "$1" --proxy "http://127.0.0.1:$tts_port" --tools "http://127.0.0.1:$tools_port" \
    --tools-token "$tools_token" --host "http://127.0.0.1:$host_port" --voices "$voices" \
    --replica "tts-a=http://127.0.0.1:$a_port" --replica "tts-b=http://127.0.0.1:$b_port" \
    --container "tts-a=${project}_tts-a_1" --container "tts-b=${project}_tts-b_1")
}
for step in affinity mcp failover rolling; do
  step_started=$(date +%s)
  client "$step" || { for s in tts-a tts-b proxy; do podman logs "${project}_${s}_1" 2>&1 | tail -15 >&2; done; die "the $step step failed"; }
  log "ok: $step in $(( $(date +%s) - step_started )) s"
done
log "PASSED in $(( $(date +%s) - started )) s after the images"
