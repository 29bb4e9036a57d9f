# The local registry (distribution v3, built from source by kind/node-image/build-binaries.sh).
ARG BASE
FROM ${BASE}
COPY registry /usr/local/bin/registry
COPY registry.yml /etc/distribution/config.yml
VOLUME /var/lib/registry
EXPOSE 5000
ENTRYPOINT ["registry", "serve", "/etc/distribution/config.yml"]
