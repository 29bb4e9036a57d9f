# The maintpage-page-server image: the maintenance page server the operator deploys. Build from the repository root:
#   docker build -f packages/maintpage-operator/page-server.Dockerfile -t ghcr.io/k8s-operators/maintpage-page-server:0.1.0 .
# (npm run images builds every image of the project, on local stand-in bases where no registry answers.)
# BUILD_BASE and RUNTIME_BASE name the base images; the defaults are the published ones.
# Behind a TLS-inspecting proxy, hand npm its CA bundle as a build secret (never stored in a layer):
#   --secret id=npm-ca,src=/etc/ssl/certs/ca-certificates.crt
ARG BUILD_BASE=node:24.21.0-bookworm-slim
ARG RUNTIME_BASE=gcr.io/distroless/nodejs24-debian12:nonroot@sha256:14d42e2511532589a7c7e01a753667a74fcc96266e137e8125006b87b0c32d0a

FROM ${BUILD_BASE} AS build
WORKDIR /workspace
# The workspace's manifests first, the same in every image's Dockerfile: the dependencies are one cached layer for all
# images, installed again only when a manifest or the lockfile changes (a new workspace package needs a line here).
COPY package.json package-lock.json nx.json tsconfig.base.json ./
COPY tools/package.json tools/
COPY packages/controller-core/package.json packages/controller-core/
COPY packages/delivery/package.json packages/delivery/
COPY packages/maintpage-operator/package.json packages/maintpage-operator/
COPY packages/nutanix-ahvvm-operator/package.json packages/nutanix-ahvvm-operator/
COPY packages/postgresql-operator/package.json packages/postgresql-operator/
COPY packages/prism-simulator/package.json packages/prism-simulator/
COPY packages/soak/package.json packages/soak/
COPY packages/testkit/package.json packages/testkit/
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm-ca \
    if [ -f /run/secrets/npm-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca; fi \
 && npm ci --no-audit --no-fund --loglevel=error
COPY tools ./tools
COPY packages ./packages
# Every operator at once, the same step in every Dockerfile: one cached layer serves all four images.
RUN npx nx run-many -t build -p @k8s-operators/maintpage-operator @k8s-operators/postgresql-operator @k8s-operators/nutanix-ahvvm-operator --output-style=static
# The page server imports Node's own modules and its package's files only: no node_modules, no controller-core.
RUN node tools/images/runtime-tree.mjs /out packages/maintpage-operator --no-dependencies

# Distroless Node 24: no shell, no package manager, user 65532; works with a read-only root filesystem.
FROM ${RUNTIME_BASE}
WORKDIR /app
COPY --from=build /out /app
USER 65532:65532
ENV NODE_ENV=production
# Exec form, so SIGTERM reaches the process, which shuts down gracefully. The server itself is the entry point, so the
# args the operator gives the container are its flags (args replace CMD, never ENTRYPOINT).
ENTRYPOINT ["/nodejs/bin/node", "packages/maintpage-operator/dist/page-server/main.js"]
