# syntax=docker/dockerfile:1
# One Dockerfile, one target per service, built from the repository root:
#   docker build --target gateway  -t winnow-gateway  .
#   docker build --target jobs     -t winnow-jobs     .
#   docker build --target auth     -t winnow-auth     .
#   docker build --target renderer -t winnow-renderer .
#   docker build --target extractor -t winnow-extractor .
# Node.js 22 LTS (20 reaches its end of life on 2026-04-30); the code also runs on 20.19+.
ARG NODE_IMAGE=node:22-bookworm-slim

# --- manifests: the lockfile and every workspace's package.json, what npm ci needs.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/platform/package.json packages/platform/
COPY services/auth/package.json services/auth/
COPY services/renderer/package.json services/renderer/
COPY services/extractor/package.json services/extractor/
COPY services/gateway/package.json services/gateway/
COPY clients/node/package.json clients/node/
COPY scripts/package.json scripts/
COPY test/support/package.json test/support/

# --- build: every dependency (TypeScript included), then the Node.js client's build and tsc -b of the four services.
FROM manifests AS build
# npm ci: exactly the lockfile. It lacks other platforms' optional binaries (see .ci/run), which
# Linux images never need: the Linux x64 and arm64 ones are recorded. --ignore-scripts: the only
# dependency install scripts are denied by allowScripts anyway, and the Node.js client's own
# `prepare` (its build) needs its sources, which images leave out.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json ./
COPY packages/platform packages/platform
COPY services services
# The Node.js client: the gateway's /mcp serves its MCP tools (its own build, ESM and CommonJS).
COPY clients/node clients/node
RUN npm run -s build -w @winnow/client
RUN npx tsc -b services/auth services/renderer services/extractor services/gateway

# --- prod-deps: the same lockfile without devDependencies (no TypeScript, Vitest, buf, ts-proto).
FROM manifests AS prod-deps
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime: what every service shares. Services run from /app, the repository layout,
# because the telemetry preload and the .proto files for reflection are found from there.
FROM ${NODE_IMAGE} AS runtime
# Each service's /metrics (METRICS_PORT) is reached from outside the container, like its API.
ENV NODE_ENV=production METRICS_HOST=0.0.0.0
WORKDIR /app
COPY --from=prod-deps /src/node_modules node_modules
COPY package.json ./
COPY proto proto
COPY packages/platform/package.json packages/platform/
COPY --from=build /src/packages/platform/dist packages/platform/dist
# The image's own unprivileged user (uid 1000); files stay root-owned, so the code is read-only to it.
USER 1000:1000

# The gRPC backends listen on every interface of the container.
FROM runtime AS grpc-runtime
ENV GRPC_HOST=0.0.0.0

FROM grpc-runtime AS auth
# The dev key file (and PGlite's database when DATABASE_URL is unset) go in /data: mount a
# volume. Created owned by the service's user, so a fresh named volume inherits that owner.
USER root
RUN mkdir /data && chown 1000:1000 /data
USER 1000:1000
ENV WINNOW_DATA_DIR=/data
COPY services/auth/package.json services/auth/
COPY --from=build /src/services/auth/dist services/auth/dist
EXPOSE 50051
CMD ["node", "--import", "@winnow/platform/telemetry", "services/auth/dist/main.js"]

FROM grpc-runtime AS extractor
# Without DATABASE_URL, learned templates go to a PGlite database under /tmp (the one writable
# place when the root filesystem is read-only): kept while the container lives.
ENV WINNOW_DATA_DIR=/tmp/winnow
COPY services/extractor/package.json services/extractor/
COPY --from=build /src/services/extractor/dist services/extractor/dist
EXPOSE 50053
CMD ["node", "--import", "@winnow/platform/telemetry", "services/extractor/dist/main.js"]

FROM runtime AS gateway
# Without REDIS_URL, the scrape cache goes to a PGlite database under /tmp (the one writable place
# when the root filesystem is read-only): kept while the container lives.
ENV HOST=0.0.0.0 WINNOW_DATA_DIR=/tmp/winnow
COPY services/gateway/package.json services/gateway/
COPY --from=build /src/services/gateway/dist services/gateway/dist
# /mcp's tools, through node_modules/@winnow/client (a workspace link).
COPY clients/node/package.json clients/node/
COPY --from=build /src/clients/node/dist clients/node/dist
# The dashboard's stylesheet and script, served from services/gateway/assets.
COPY services/gateway/assets services/gateway/assets
EXPOSE 8080
CMD ["node", "--import", "@winnow/platform/telemetry", "services/gateway/dist/main.js"]

# The jobs worker: the gateway's build (batch pages are its scrapes), started from its second entry point, serving
# gRPC. Without GATEWAY_DATABASE_URL its batch jobs go to a PGlite database under /tmp, kept while the container lives.
FROM grpc-runtime AS jobs
ENV WINNOW_DATA_DIR=/tmp/winnow
COPY services/gateway/package.json services/gateway/
COPY --from=build /src/services/gateway/dist services/gateway/dist
EXPOSE 50054
CMD ["node", "--import", "@winnow/platform/telemetry", "services/gateway/dist/jobs-main.js"]

FROM grpc-runtime AS renderer
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
ENV CHROMIUM_PATH=/usr/bin/chromium HOME=/tmp XDG_CONFIG_HOME=/tmp/.config XDG_CACHE_HOME=/tmp/.cache
EXPOSE 50052
CMD ["node", "--import", "@winnow/platform/telemetry", "services/renderer/dist/main.js"]
