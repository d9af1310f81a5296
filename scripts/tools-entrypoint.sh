#!/bin/sh
# Container entrypoint of the bot spawner tool server.
#
# Maps the stack's SPAWNER_HOST, SPAWNER_PORT and SPAWNER_TOKEN variables to
# the --spawner-host, --spawner-port and --spawner-token flags (an unset or
# empty variable adds no flag), then execs the tool server with them followed
# by this script's own arguments, so a flag given to the container still
# wins: the last occurrence of a flag is the one used.
#
# The command exec'd is `node <repo>/dist/src/bin.cjs tools`, or, when
# CHORUS_TOOLS_EXEC names an executable, that executable with the flags only;
# tests use it to see exactly what would be run. Values are never echoed:
# the token must not reach the container's logs.
set -eu

if [ -n "${SPAWNER_TOKEN:-}" ]; then
  set -- --spawner-token "$SPAWNER_TOKEN" "$@"
fi
if [ -n "${SPAWNER_PORT:-}" ]; then
  set -- --spawner-port "$SPAWNER_PORT" "$@"
fi
if [ -n "${SPAWNER_HOST:-}" ]; then
  set -- --spawner-host "$SPAWNER_HOST" "$@"
fi

if [ -n "${CHORUS_TOOLS_EXEC:-}" ]; then
  exec "$CHORUS_TOOLS_EXEC" "$@"
fi
root=$(cd "$(dirname "$0")/.." && pwd)
exec node "$root/dist/src/bin.cjs" tools "$@"
