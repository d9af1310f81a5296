# syntax=docker/dockerfile:1
# The Chorus image: the TTS service by default, and the tool server and the
# reference spawner from the same image (compose.yaml). A build stage
# (compilers, dev dependencies) and a slim runtime stage that gets only what
# the services load at run time.
#   docker build -t chorus .
#   docker run -p 8995:8995 -v chorus-voices:/voices chorus
# Needs BuildKit (the default builder since Docker 23) or buildah for the
# cache mounts. Build arguments (README, Docker image):
#   BUNDLED_VOICES   catalogue voices baked into the image
#   VOICES_MIRROR    a folder in the build context laid out like the Piper
#                    voices repository: read instead of downloading
#   VOICES_CATALOG   a catalogue file in the build context (the format of
#                    voices/catalog.json), e.g. for your own voices
#   NPM_REGISTRY     an npm registry to use instead of the default
#   BUILD_CA_CERT    a PEM file in the build context: a TLS-intercepting
#                    proxy's CA, trusted by npm and node during the build
#   WITH_AAC         1: install Debian's libavcodec59 (FFmpeg's AAC encoder,
#                    about 72 MiB more) so response_format "aac" works;
#                    without it AAC answers 400 (docs/audio.md)
# Docker passes HTTP_PROXY, HTTPS_PROXY and NO_PROXY to RUN steps on its own.

ARG NODE_MAJOR=20

FROM node:${NODE_MAJOR}-bookworm AS build
# Build tools for the addon. apt-get, dpkg-deb and debian-archive-keyring come
# with the image: scripts/fetch-native-deps.sh uses them, with a private apt
# state and the mirror named in this image's own apt sources. xz-utils (for
# tar) is in node:20-bookworm already; named here so a leaner base works too.
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake g++ make ninja-build python3 patch xz-utils \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Everything the build reads; .dockerignore keeps out host builds, fetched
# third-party files, local voices and tests.
COPY . .
# npm ci runs the package's install script (fetch the pinned third-party
# sources, build build/Release/chorus_native.node) and its prepare script
# (tsc into dist/). The check makes a change to those scripts fail here
# rather than in a container. The downloads cache keeps the Debian packages
# (checked against their sha256 pins on every build) between builds.
# onnxruntime-node's own install script would download GPU libraries we do
# not use (npm 10 has no allowScripts policy to deny it, see package.json).
ARG NPM_REGISTRY=""
ARG BUILD_CA_CERT=""
RUN --mount=type=cache,target=/root/.npm \
    --mount=type=cache,target=/app/native/third_party/downloads \
    env ONNXRUNTIME_NODE_INSTALL=skip ${BUILD_CA_CERT:+NODE_EXTRA_CA_CERTS=/app/$BUILD_CA_CERT npm_config_cafile=/app/$BUILD_CA_CERT} \
    npm ci ${NPM_REGISTRY:+--registry=$NPM_REGISTRY} \
 && test -f build/Release/chorus_native.node \
 && test -f dist/src/bin.cjs \
 && test -f dist/scripts/fetch-voices.js
# onnxruntime-node ships the library for every platform; the image keeps
# Linux's only (about 220 MB less).
RUN npm prune --omit=dev \
 && rm -rf node_modules/onnxruntime-node/bin/napi-v6/darwin node_modules/onnxruntime-node/bin/napi-v6/win32
# The bundled voices, fetched by the compiled script (dev dependencies are
# gone by now, so this also proves it runs without them), from Piper's
# voices repository or, offline, from VOICES_MIRROR; from the catalogue
# VOICES_CATALOG if given. Every file is size- and md5-checked against the
# catalogue either way. A cache keeps the ~120 MB between builds; the script
# re-checks every cached file and fetches only what is missing or wrong.
# Node 20's fetch does not use HTTP(S)_PROXY: behind a proxy, use a mirror.
ARG BUNDLED_VOICES="en_US-lessac-medium en_US-ryan-medium"
ARG VOICES_MIRROR=""
ARG VOICES_CATALOG=""
RUN --mount=type=cache,target=/var/cache/chorus-voices \
    env ${BUILD_CA_CERT:+NODE_EXTRA_CA_CERTS=/app/$BUILD_CA_CERT} \
    node dist/scripts/fetch-voices.js --dest /var/cache/chorus-voices \
      ${VOICES_MIRROR:+--mirror "$VOICES_MIRROR"} ${VOICES_CATALOG:+--catalog "$VOICES_CATALOG"} $BUNDLED_VOICES \
 && mkdir -p voices/bundled \
 && for voice in $BUNDLED_VOICES; do \
      cp /var/cache/chorus-voices/"$voice".onnx /var/cache/chorus-voices/"$voice".onnx.json voices/bundled/ || exit 1; \
    done

FROM node:${NODE_MAJOR}-bookworm-slim AS runtime
# TTS_VOICE_DIR is set here, explicitly: outside the image the default is
# ./voices/local. ORT_DISABLE_TELEMETRY: ONNX Runtime's telemetry off (the
# chorus command sets it too), for any process in the image; with it on,
# ONNX Runtime writes a device id under $HOME/.cache, and prints "Failed to
# persist telemetry device ID" where it cannot (/app is read-only to uid 10001).
# MALLOC_ARENA_MAX: the addon caps glibc's arenas at 2 when it loads, too late
# for the threads Node starts first (a service ends up with 6); set here, it
# holds for every thread (README, Sizing).
ENV NODE_ENV=production \
    TTS_VOICE_DIR=/voices \
    CHORUS_BUNDLED_VOICE_DIR=/app/voices/bundled \
    ORT_DISABLE_TELEMETRY=1 \
    MALLOC_ARENA_MAX=2
# A fixed numeric id, so orchestrators can verify it is not root. /voices,
# /state (the reference spawner's state, see compose.yaml) and /spool (whole
# answers waiting to be sent, TTS_SPOOL_DIR) are created and owned here, so a
# new named volume inherits the owner.
RUN groupadd --system --gid 10001 chorus \
 && useradd --system --uid 10001 --gid chorus --home-dir /app --no-create-home --shell /usr/sbin/nologin chorus \
 && mkdir /voices /state /spool \
 && chown chorus:chorus /voices /state /spool
# AAC is opt-in: libavcodec59 links some ninety shared libraries (video
# codecs among them) for one response format: a sixth more image, and a
# wider surface for security advisories. The addon dlopens it when present
# (docs/deployment.md).
ARG WITH_AAC=0
RUN if [ "$WITH_AAC" = 1 ]; then \
      apt-get update \
   && apt-get install -y --no-install-recommends libavcodec59 \
   && rm -rf /var/lib/apt/lists/*; \
    elif [ "$WITH_AAC" != 0 ]; then \
      echo "Expected 0 or 1 for WITH_AAC but received \"$WITH_AAC\"" >&2; exit 2; \
    fi
WORKDIR /app
# The application stays owned by root: the service cannot modify itself.
# package.json marks the project root, where the code finds the addon, the
# espeak-ng data and voices/catalog.json. LICENSE travels with the binaries
# (GPL-3.0-or-later).
COPY --from=build /app/package.json /app/LICENSE ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/public ./public
COPY --from=build /app/build/Release/chorus_native.node ./build/Release/chorus_native.node
COPY --from=build /app/native/third_party/espeak-ng-data ./native/third_party/espeak-ng-data
COPY --from=build /app/voices/catalog.json ./voices/catalog.json
COPY --from=build /app/voices/bundled ./voices/bundled
COPY --from=build --chmod=0755 /app/scripts/docker-entrypoint.sh ./scripts/docker-entrypoint.sh
COPY --from=build --chmod=0755 /app/scripts/tools-entrypoint.sh ./scripts/tools-entrypoint.sh
USER 10001:10001
VOLUME /voices
EXPOSE 8995
# No curl in the slim image; node's fetch does the same job.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.TTS_HTTP_PORT || 8995) + '/health', { signal: AbortSignal.timeout(4000) }).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/app/scripts/docker-entrypoint.sh"]
