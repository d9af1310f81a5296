#!/usr/bin/env bash
# npm run compose:test: brings compose.yaml up with podman-compose and uses
# it as its users would, then tears it down:
#   1. the image: built by `scripts/image-test.sh --build-only` unless the
#      image-test storage already holds it (CHORUS_COMPOSE_REBUILD=1 forces);
#   2. podman with a containers.conf and storage.conf of this run's own (runc
#      and cgroupfs: crun refuses this machine's hybrid cgroup layout; ulimits
#      under the hard limits here; vfs storage shared with the image build),
#      a scratch copy of the project's compose files with env files holding
#      fresh tokens, and free host ports;
#   3. /ready, speech in WAV and Opus, bot_create / bot_list / bot_delete
#      through the tool server's MCP endpoint with the official MCP SDK
#      client (scripts/compose-test-client.ts);
#   4. a marker written into the voices volume, the TTS container restarted,
#      /ready again, the marker and the same voices there;
#   5. `podman-compose down` and the volumes removed, pass or fail.
# Needs root, podman, podman-compose, buildah, debootstrap, netavark and
# aardvark-dns (service names resolve on the compose network):
#   apt-get install podman podman-compose buildah debootstrap netavark aardvark-dns runc iptables
# (netavark sets up the compose network with iptables; without it every
# container stays "Created" with "netavark: No such file or directory").
# Not part of npm test: the first image build takes over 10 minutes here.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${CHORUS_IMAGE_TEST_DIR:-/var/tmp/chorus-image-test}
image=localhost/chorus:image-test
project=chorus-compose-test

log() { printf 'compose-test: %s\n' "$*" >&2; }
die() { log "FAILED: $*"; exit 1; }

# shellcheck source=lib/podman-env.sh
source "$root/scripts/lib/podman-env.sh"
podman_env

compose() { (cd "$scratch/project" && podman-compose -p "$project" -f compose.yaml "$@"); }
cleanup() {
  local status=$?
  if [ -d "$scratch/project" ]; then
    compose down >"$scratch/down.log" 2>&1 || true
    for volume in voices spawner-state; do podman volume rm -f "${project}_$volume" >/dev/null 2>&1 || true; done
  fi
  if [ "$status" = 0 ]; then rm -rf "$scratch"; else log "logs kept in $scratch"; fi
}
trap cleanup EXIT

# 1. The image.
if [ "${CHORUS_COMPOSE_REBUILD:-0}" = 1 ] || ! podman image exists "$image"; then
  log "building $image with scripts/image-test.sh --build-only"
  bash "$root/scripts/image-test.sh" --build-only
fi
podman image exists "$image" || die "$image is not in $work/storage after the build"
log "ok: image $image"

# 2. The stack, from a copy of the compose file and what it mounts.
mkdir -p "$scratch/project/deploy"
cp "$root/compose.yaml" "$scratch/project/"
spawner_token=$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")
tools_token=$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")
printf 'SPAWNER_TOKEN=%s\nCHORUS_TOOLS_TOKEN=%s\n' "$spawner_token" "$tools_token" > "$scratch/project/deploy/compose.env"
printf 'TTS_DEFAULT_VOICE=en_US-probe-medium\nTTS_WORKERS_PER_VOICE=1\n' > "$scratch/project/deploy/tts.env"
free_port() { node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close() })"; }
tts_port=$(free_port); tools_port=$(free_port)
export CHORUS_IMAGE="$image" CHORUS_TTS_PORT="$tts_port" CHORUS_TOOLS_PORT="$tools_port"
# A stack left by an interrupted run goes first.
compose down >/dev/null 2>&1 || true
started=$(date +%s)
compose up -d --no-build >"$scratch/up.log" 2>&1 || { tail -30 "$scratch/up.log" >&2; die "podman-compose up failed"; }
log "stack up: tts on $tts_port, tools on $tools_port"

wait_ready() {
  local deadline=$(( $(date +%s) + $1 ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$tts_port/ready")" = 200 ] && return 0
    sleep 1
  done
  return 1
}
wait_ready 300 || { podman logs "${project}_tts_1" 2>&1 | tail -30 >&2; die "/ready never answered 200"; }
log "ok: /ready after $(( $(date +%s) - started )) s"
tools_deadline=$(( $(date +%s) + 120 ))
until curl -s -o /dev/null "http://127.0.0.1:$tools_port/healthz"; do
  [ "$(date +%s)" -lt "$tools_deadline" ] || { podman logs "${project}_tools_1" 2>&1 | tail -30 >&2; die "the tool server never answered /healthz"; }
  sleep 1
done

# 3. As a client.
client() { node --import tsx "$root/scripts/compose-test-client.ts" "$@" --tts "http://127.0.0.1:$tts_port" --tools "http://127.0.0.1:$tools_port" --tools-token "$tools_token"; }
(cd "$root" && client use) || die "the client steps failed"

# 4. The voices volume survives a restart of the TTS container.
before=$(cd "$root" && client voices)
podman exec "${project}_tts_1" node -e "require('fs').writeFileSync('/voices/.compose-test-marker', 'kept')"
podman restart "${project}_tts_1" >/dev/null
wait_ready 300 || die "/ready never answered 200 after the restart"
[ "$(podman exec "${project}_tts_1" cat /voices/.compose-test-marker)" = kept ] || die "the marker in the voices volume is gone after the restart"
after=$(cd "$root" && client voices)
[ "$before" = "$after" ] || die "voices before the restart ($before) differ from after ($after)"
log "ok: the voices volume survived a restart of the TTS container ($(echo "$after" | tr '\n' ' '))"

log "PASSED in $(( $(date +%s) - started )) s after the image"
