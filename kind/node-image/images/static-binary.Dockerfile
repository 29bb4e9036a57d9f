# One Kubernetes-side program (kube-apiserver, etcd, coredns, ...) on the Debian base, for the locally built kind
# node image (kind/node-image.sh). The upstream images are distroless; a shell here is a debugging aid, nothing uses it.
ARG BASE
FROM ${BASE}
ARG BINARY
ARG EXTRA_PACKAGES=""
RUN if [ -n "$EXTRA_PACKAGES" ]; then \
      apt-get update && apt-get install -y --no-install-recommends $EXTRA_PACKAGES && rm -rf /var/lib/apt/lists/*; \
    fi
COPY ${BINARY} /usr/local/bin/${BINARY}
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LABEL org.opencontainers.image.description="kind/node-image.sh: ${BINARY} built from source, for kind nodes built where no registry answers"
