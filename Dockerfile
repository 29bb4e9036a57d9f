# The project's four images, one target each, all built from one build stage. Build an image from the repository root:
#   docker build --target maintpage-operator -t ghcr.io/k8s-operators/maintpage-operator:0.1.0 .
#   docker build --target maintpage-page-server -t ghcr.io/k8s-operators/maintpage-page-server:0.1.0 .
#   docker build --target nutanix-ahvvm-operator -t ghcr.io/k8s-operators/nutanix-ahvvm-operator:0.1.0 .
#   docker build --target postgresql-operator -t ghcr.io/k8s-operators/postgresql-operator:0.1.0 .
# (npm run images builds all four, on local stand-in bases where no registry answers.) BuildKit builds only the stages
# the target needs; without --target it builds the last one, postgresql-operator.
# BUILD_BASE, RUNTIME_BASE (the distroless images) and POSTGRES_RUNTIME_BASE name the base images; the defaults are the
# published ones.
# Behind a TLS-inspecting proxy, hand npm its CA bundle as a build secret (never stored in a layer):
#   --secret id=npm-ca,src=/etc/ssl/certs/ca-certificates.crt
ARG BUILD_BASE=node:24.21.0-bookworm-slim
ARG RUNTIME_BASE=gcr.io/distroless/nodejs24-debian12:nonroot@sha256:14d42e2511532589a7c7e01a753667a74fcc96266e137e8125006b87b0c32d0a
ARG POSTGRES_RUNTIME_BASE=node:24.21.0-bookworm-slim

# Written once for every image, so its layers are built once and shared by all four.
FROM ${BUILD_BASE} AS build
WORKDIR /workspace
# The workspace's manifests first: the dependencies are one cached layer, installed again only when a manifest or the
# lockfile changes (a new workspace package needs a line here).
COPY package.json package-lock.json nx.json tsconfig.base.json ./
COPY tools/package.json tools/
COPY packages/controller-core/package.json packages/controller-core/
COPY packages/delivery/package.json packages/delivery/
COPY packages/maintpage-operator/package.json packages/maintpage-operator/
COPY packages/nutanix-ahvvm-operator/package.json packages/nutanix-ahvvm-operator/
COPY packages/postgresql-operator/package.json packages/postgresql-operator/
COPY packages/prism-simulator/package.json packages/prism-simulator/
COPY packages/release/package.json packages/release/
COPY packages/soak/package.json packages/soak/
COPY packages/testkit/package.json packages/testkit/
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm-ca \
    if [ -f /run/secrets/npm-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca; fi \
 && npm ci --no-audit --no-fund --loglevel=error
COPY tools ./tools
COPY packages ./packages
RUN npx nx run-many -t build -p @k8s-operators/maintpage-operator @k8s-operators/postgresql-operator @k8s-operators/nutanix-ahvvm-operator --output-style=static

# What each image runs (tools/images/runtime-tree.mjs), in /out of a stage of its own: an operator's tree takes that
# operator's production dependencies only, so each installs them over the shared build.
FROM build AS maintpage-operator-tree
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm-ca \
    if [ -f /run/secrets/npm-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca; fi \
 && npm ci --omit=dev --workspace @k8s-operators/maintpage-operator --no-audit --no-fund --loglevel=error \
 && node tools/images/runtime-tree.mjs /out packages/maintpage-operator

# The page server imports Node's own modules and its package's files only: no node_modules, no controller-core.
FROM build AS maintpage-page-server-tree
RUN node tools/images/runtime-tree.mjs /out packages/maintpage-operator --no-dependencies

FROM build AS nutanix-ahvvm-operator-tree
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm-ca \
    if [ -f /run/secrets/npm-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca; fi \
 && npm ci --omit=dev --workspace @k8s-operators/nutanix-ahvvm-operator --no-audit --no-fund --loglevel=error \
 && node tools/images/runtime-tree.mjs /out packages/nutanix-ahvvm-operator

FROM build AS postgresql-operator-tree
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm-ca \
    if [ -f /run/secrets/npm-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca; fi \
 && npm ci --omit=dev --workspace @k8s-operators/postgresql-operator --no-audit --no-fund --loglevel=error \
 && node tools/images/runtime-tree.mjs /out packages/postgresql-operator

# Distroless Node 24: no shell, no package manager, user 65532; works with a read-only root filesystem. COPY writes
# files as root whatever USER says, so the program cannot change its own files.
FROM ${RUNTIME_BASE} AS distroless
WORKDIR /app
USER 65532:65532
ENV NODE_ENV=production

# Exec form, so SIGTERM reaches the process, which shuts down gracefully. The program itself is the entry point, so the
# args a Deployment (or the operator, for the page server) gives the container are its flags (args replace CMD, never
# ENTRYPOINT). --optimize-for-size: see packages/controller-core/bench/operator-node-flags.ts; the heap limit is the
# Deployment's NODE_OPTIONS, beside its memory limit.
FROM distroless AS maintpage-operator
COPY --from=maintpage-operator-tree /out /app
ENTRYPOINT ["/nodejs/bin/node", "--optimize-for-size", "--max-opt=2", "packages/maintpage-operator/dist/main.js"]

FROM distroless AS maintpage-page-server
COPY --from=maintpage-page-server-tree /out /app
ENTRYPOINT ["/nodejs/bin/node", "packages/maintpage-operator/dist/page-server/main.js"]

FROM distroless AS nutanix-ahvvm-operator
COPY --from=nutanix-ahvvm-operator-tree /out /app
ENTRYPOINT ["/nodejs/bin/node", "--optimize-for-size", "--max-opt=2", "packages/nutanix-ahvvm-operator/dist/main.js"]

# A backup or restore runs only with the client tools of the server's own major (a newer pg_dump writes dumps an older
# server refuses), so the image carries the tools of every server major the operator supports; it picks
# /usr/lib/postgresql/<server major>/bin, and without it the backup fails at once saying which image to use.
# POSTGRES_APT_SOURCE: "pgdg", the PostgreSQL project's apt repository (every major), or "debian", the base's own
# distribution (one major: bookworm's 15, for 15 servers only). pg_dump runs under coreutils' stdbuf
# (/usr/bin/stdbuf and /usr/libexec/coreutils/libstdbuf.so, part of every Debian image) so that it writes 64 KiB at
# a time.
FROM ${POSTGRES_RUNTIME_BASE} AS postgresql-operator
ARG POSTGRES_APT_SOURCE=pgdg
ARG POSTGRES_MAJORS="15 16 17"
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates postgresql-common \
 && if [ "$POSTGRES_APT_SOURCE" = pgdg ]; then /usr/share/postgresql-common/pgdg/apt.postgresql.org.sh -y; fi \
 && apt-get install -y --no-install-recommends $(for m in $POSTGRES_MAJORS; do echo postgresql-client-$m; done) \
 && apt-get purge -y --auto-remove postgresql-common \
 && rm -rf /var/lib/apt/lists/* /usr/local/lib/node_modules/npm /usr/local/bin/npm /usr/local/bin/npx \
 && for m in $POSTGRES_MAJORS; do /usr/lib/postgresql/$m/bin/pg_dump --version; done
WORKDIR /app
COPY --from=postgresql-operator-tree /out /app
USER 65532:65532
ENV NODE_ENV=production
# Node from the base's PATH, with the same flags as the distroless operators.
ENTRYPOINT ["node", "--optimize-for-size", "--max-opt=2", "packages/postgresql-operator/dist/main.js"]
