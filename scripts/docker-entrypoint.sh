#!/bin/sh
# Entrypoint of the Chorus TTS image.
#
# 1. Copies the voices bundled in the image into the voice volume
#    (`chorus voices install-bundled`: TTS_VOICE_DIR, default /voices, from
#    CHORUS_BUNDLED_VOICE_DIR, default /app/voices/bundled). A voice already
#    in the volume, even partly, is never touched, so user voices and edits
#    survive image updates. If the copy fails, the container stops with its
#    exit code rather than serving without the voices it promised; set
#    CHORUS_INSTALL_BUNDLED=0 to skip it (a read-only voice volume).
# 2. Execs the command: the arguments given, or by default
#    `node $CHORUS_APP_DIR/dist/src/bin.cjs serve`. exec makes the server
#    PID 1 itself, so it receives docker stop's SIGTERM and its exit code is
#    the container's.
#
# CHORUS_APP_DIR (default /app) and CHORUS_NODE (default node) exist so tests
# can run this script against a scratch folder with a stand-in CLI.
set -eu

app_dir=${CHORUS_APP_DIR:-/app}
node_bin=${CHORUS_NODE:-node}
cli="$app_dir/dist/src/bin.cjs"

if [ "${CHORUS_INSTALL_BUNDLED:-1}" != "0" ]; then
  "$node_bin" "$cli" voices install-bundled
fi

if [ "$#" -eq 0 ]; then
  set -- "$node_bin" "$cli" serve
fi
exec "$@"
