# etcd-probe container image.
#
# Build:  docker build -t etcd-probe .      (or: buildah bud -t etcd-probe .)
# Run:    docker run --read-only -p 8080:8080 -e ETCD_PROBE_ENDPOINTS=https://10.0.0.1:2379 etcd-probe
#
# Base images are pinned by tag only: this repository is built and tested where no registry for base images
# can be reached, so their digests could not be resolved here. Pin `@sha256:...` in your own pipeline.
# `npm run test:image` builds this file with buildah and runs the image against a real etcd.

# --- build: dev dependencies, compile TypeScript, then drop the dev dependencies -------------------------
FROM docker.io/library/node:24-bookworm-slim AS build
WORKDIR /app
# The lockfile alone decides the dependency tree; this layer is reused until it changes. No dependency
# needs an install script, so none runs (whatever the npm version's default).
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# --- runtime: the compiled service and its production dependencies, nothing else -------------------------
FROM docker.io/library/node:24-bookworm-slim AS runtime
# Set by the build pipeline: --build-arg VERSION=<package.json version> REVISION=$(git rev-parse HEAD) SOURCE=<repo URL>.
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=""
LABEL org.opencontainers.image.title="etcd-probe" \
      org.opencontainers.image.description="HTTP health-probe service for etcd clusters: one honest verdict with actionable reasons" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
ENV NODE_ENV=production
WORKDIR /app
# Owned by root and not writable by the service user: the service writes nothing, so the root
# filesystem can be mounted read-only (Kubernetes readOnlyRootFilesystem: true).
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# GET /openapi.yaml serves this file, read at start from beside dist/.
COPY openapi.yaml ./openapi.yaml
# Numeric, so Kubernetes can check runAsNonRoot without reading /etc/passwd; 65532 owns no file in the image
# (the distroless "nonroot" convention) and is what the Helm chart runs as.
USER 65532:65532
EXPOSE 8080
# Same V8 heap bounds as `npm start`; node is PID 1 and handles SIGTERM itself (graceful close).
ENTRYPOINT ["node", "--max-semi-space-size=4", "--max-old-space-size=128", "dist/main.js"]
