# A program that its image runs as the entry point (coredns, pause, local-path-provisioner): kubeadm's manifests and
# containerd's sandbox give it only arguments. ENTRYPOINT cannot expand a build argument, hence the fixed link.
ARG BASE
FROM ${BASE}
ARG BINARY
COPY ${BINARY} /${BINARY}
RUN ln -s "/${BINARY}" /entrypoint
LABEL org.opencontainers.image.description="kind/node-image.sh: ${BINARY} built from source, for kind nodes built where no registry answers"
ENTRYPOINT ["/entrypoint"]
