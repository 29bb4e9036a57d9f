# Local stand-in for node:<version>-bookworm-slim: the Debian stand-in plus Node.js and npm from the npm registry.
# Built by tools/images/local-bases.sh, whose cache directory is the build context (the two verified tarballs).
ARG DEBIAN_BASE
FROM ${DEBIAN_BASE}
ARG NODE_TARBALL
ARG NPM_TARBALL
COPY ${NODE_TARBALL} ${NPM_TARBALL} /tmp/
RUN set -eu; \
    tar -xzf "/tmp/${NODE_TARBALL}" -C /usr/local --strip-components=1 package/bin/node; \
    mkdir -p /usr/local/lib/node_modules/npm; \
    tar -xzf "/tmp/${NPM_TARBALL}" -C /usr/local/lib/node_modules/npm --strip-components=1; \
    ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm; \
    ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx; \
    rm "/tmp/${NODE_TARBALL}" "/tmp/${NPM_TARBALL}"; \
    node --version; npm --version
CMD ["node"]
