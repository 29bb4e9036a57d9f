# Stand-in for busybox, for kind clusters where no registry answers: the specs' shell Pods run ls, truncate and sh.
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends busybox && rm -rf /var/lib/apt/lists/*
LABEL org.opencontainers.image.description="kind/stand-ins: Debian with busybox, standing in for busybox"
