# Stand-in for curlimages/curl, for kind clusters where no registry answers: e2e specs run `curl ...` in a Pod to
# reach Pod addresses from inside the cluster.
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
USER 100:101
LABEL org.opencontainers.image.description="kind/stand-ins: Debian's curl standing in for curlimages/curl"
