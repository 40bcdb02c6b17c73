# syntax=docker/dockerfile:1
# One Dockerfile, one target per service, built from the repository root:
#   docker build --target gateway  -t winnow-gateway  .
#   docker build --target auth     -t winnow-auth     .
#   docker build --target renderer -t winnow-renderer .
#   docker build --target extractor -t winnow-extractor .
ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every dependency (TypeScript included), then tsc -b of the four services.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/platform/package.json packages/platform/
COPY services/auth/package.json services/auth/
COPY services/renderer/package.json services/renderer/
COPY services/extractor/package.json services/extractor/
COPY services/gateway/package.json services/gateway/
# npm install, not npm ci: see .ci/run (the lockfile lacks other platforms' optional binaries).
RUN npm install --no-audit --no-fund
COPY tsconfig.base.json ./
COPY packages/platform packages/platform
COPY services services
RUN npx tsc -b services/auth services/renderer services/extractor services/gateway

# --- prod-deps: the same lockfile without devDependencies (no TypeScript, Vitest, buf, ts-proto).
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/platform/package.json packages/platform/
COPY services/auth/package.json services/auth/
COPY services/renderer/package.json services/renderer/
COPY services/extractor/package.json services/extractor/
COPY services/gateway/package.json services/gateway/
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime: what every service shares. Services run from /app, the repository layout,
# because the telemetry preload and the .proto files for reflection are found from there.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=prod-deps /app/node_modules node_modules
COPY package.json ./
COPY proto proto
COPY packages/platform/package.json packages/platform/
COPY --from=build /src/packages/platform/dist packages/platform/dist
# The image's own unprivileged user (uid 1000); files stay root-owned, so the code is read-only to it.
USER 1000:1000

FROM runtime AS auth
COPY services/auth/package.json services/auth/
COPY --from=build /src/services/auth/dist services/auth/dist
# The dev key file (and PGlite's database when DATABASE_URL is unset) go here: mount a volume.
# Created owned by the service's user, so a fresh named volume inherits that owner.
USER root
RUN mkdir /data && chown 1000:1000 /data
USER 1000:1000
ENV GRPC_HOST=0.0.0.0 WINNOW_DATA_DIR=/data
EXPOSE 50051
CMD ["node", "--import", "@winnow/platform/telemetry", "services/auth/dist/main.js"]

FROM runtime AS extractor
COPY services/extractor/package.json services/extractor/
COPY --from=build /src/services/extractor/dist services/extractor/dist
ENV GRPC_HOST=0.0.0.0
EXPOSE 50053
CMD ["node", "--import", "@winnow/platform/telemetry", "services/extractor/dist/main.js"]

FROM runtime AS gateway
COPY services/gateway/package.json services/gateway/
COPY --from=build /src/services/gateway/dist services/gateway/dist
ENV HOST=0.0.0.0
EXPOSE 8080
CMD ["node", "--import", "@winnow/platform/telemetry", "services/gateway/dist/main.js"]

FROM runtime AS renderer
USER root
# Debian's Chromium (never a browser download) and fonts for Latin, CJK, other scripts and
# emoji, so real pages lay out as in a desktop browser.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium fonts-liberation fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/*
COPY services/renderer/package.json services/renderer/
COPY --from=build /src/services/renderer/dist services/renderer/dist
USER 1000:1000
# Chromium writes its profile and caches under HOME/XDG dirs: keep them in /tmp, the one
# writable place when the root filesystem is read-only.
ENV GRPC_HOST=0.0.0.0 CHROMIUM_PATH=/usr/bin/chromium HOME=/tmp XDG_CONFIG_HOME=/tmp/.config XDG_CACHE_HOME=/tmp/.cache
EXPOSE 50052
CMD ["node", "--import", "@winnow/platform/telemetry", "services/renderer/dist/main.js"]
