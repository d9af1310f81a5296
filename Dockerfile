# syntax=docker/dockerfile:1
# The Chorus TTS service: build stage (compilers, dev dependencies) and a
# slim runtime stage that gets only what the service loads at run time.
#   docker build -t chorus .
#   docker run -p 8995:8995 -v chorus-voices:/voices chorus
# Needs BuildKit (the default builder since Docker 23) for the cache mounts.

ARG NODE_MAJOR=20

FROM node:${NODE_MAJOR}-bookworm AS build
# Build tools for the addon. apt-get, dpkg-deb and debian-archive-keyring come
# with the image: scripts/fetch-native-deps.sh uses them, with a private apt
# state and the mirror named in this image's own apt sources.
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake g++ make ninja-build python3 patch \
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
RUN --mount=type=cache,target=/root/.npm \
    --mount=type=cache,target=/app/native/third_party/downloads \
    ONNXRUNTIME_NODE_INSTALL=skip npm ci \
 && test -f build/Release/chorus_native.node \
 && test -f dist/src/bin.cjs \
 && test -f dist/scripts/fetch-voices.js
# onnxruntime-node ships the library for every platform; the image keeps
# Linux's only (about 220 MB less).
RUN npm prune --omit=dev \
 && rm -rf node_modules/onnxruntime-node/bin/napi-v6/darwin node_modules/onnxruntime-node/bin/napi-v6/win32
# The bundled voices, fetched by the compiled script (dev dependencies are
# gone by now, so this also proves it runs without them). A cache keeps the
# ~120 MB between builds; the script re-checks every cached file's md5 and
# downloads only what is missing or wrong.
ARG BUNDLED_VOICES="en_US-lessac-medium en_US-ryan-medium"
RUN --mount=type=cache,target=/var/cache/chorus-voices \
    node dist/scripts/fetch-voices.js --dest /var/cache/chorus-voices $BUNDLED_VOICES \
 && mkdir -p voices/bundled \
 && for voice in $BUNDLED_VOICES; do \
      cp /var/cache/chorus-voices/"$voice".onnx /var/cache/chorus-voices/"$voice".onnx.json voices/bundled/ || exit 1; \
    done

FROM node:${NODE_MAJOR}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    TTS_VOICE_DIR=/voices \
    CHORUS_BUNDLED_VOICE_DIR=/app/voices/bundled
# A fixed numeric id, so orchestrators can verify it is not root. /voices is
# created and owned before VOLUME, so a new named volume inherits the owner.
RUN groupadd --system --gid 10001 chorus \
 && useradd --system --uid 10001 --gid chorus --home-dir /app --no-create-home --shell /usr/sbin/nologin chorus \
 && mkdir /voices \
 && chown chorus:chorus /voices
WORKDIR /app
# The application stays owned by root: the service cannot modify itself.
# package.json marks the project root, where the code finds the addon, the
# espeak-ng data and voices/catalog.json. LICENSE travels with the binaries
# (GPL-3.0-or-later).
COPY --from=build /app/package.json /app/LICENSE ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/build/Release/chorus_native.node ./build/Release/chorus_native.node
COPY --from=build /app/native/third_party/espeak-ng-data ./native/third_party/espeak-ng-data
COPY --from=build /app/voices/catalog.json ./voices/catalog.json
COPY --from=build /app/voices/bundled ./voices/bundled
COPY --from=build --chmod=0755 /app/scripts/docker-entrypoint.sh ./scripts/docker-entrypoint.sh
USER 10001:10001
VOLUME /voices
EXPOSE 8995
# No curl in the slim image; node's fetch does the same job.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.TTS_HTTP_PORT || 8995) + '/health', { signal: AbortSignal.timeout(4000) }).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/app/scripts/docker-entrypoint.sh"]
