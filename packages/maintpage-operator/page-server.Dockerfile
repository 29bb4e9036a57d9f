# syntax=docker/dockerfile:1.7
# The maintpage-page-server image. Build from the repository root:
#   docker build -f packages/maintpage-operator/page-server.Dockerfile -t ghcr.io/k8s-operators/maintpage-page-server:0.1.0 .
# (npm run images builds every image of the project.)

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /workspace
COPY package.json package-lock.json nx.json tsconfig.base.json ./
COPY packages ./packages
RUN npm ci --no-audit --no-fund \
 && npx nx run @k8s-operators/maintpage-operator:build --output-style=static
# Production dependencies of this package only; workspace packages it depends on are copied with their dist/.
RUN npm ci --omit=dev --workspace @k8s-operators/maintpage-operator --no-audit --no-fund \
 && mkdir -p /out/packages \
 && cp -r node_modules /out/ \
 && for p in controller-core maintpage-operator; do mkdir -p /out/packages/$p && cp -r packages/$p/package.json packages/$p/dist /out/packages/$p/; done \
 && find /out -name '*.map' -delete

# Distroless Node 24: no shell, no package manager, user 65532; works with a read-only root filesystem.
FROM gcr.io/distroless/nodejs24-debian12:nonroot@sha256:14d42e2511532589a7c7e01a753667a74fcc96266e137e8125006b87b0c32d0a
WORKDIR /app
COPY --from=build /out /app
USER 65532:65532
ENV NODE_ENV=production
# Exec form, so SIGTERM reaches the process, which shuts down gracefully. The server itself is the entry point, so the
# args the operator gives the container are its flags (args replace CMD, never ENTRYPOINT).
ENTRYPOINT ["/nodejs/bin/node", "packages/maintpage-operator/dist/page-server/main.js"]
