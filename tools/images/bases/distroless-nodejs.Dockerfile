# Local stand-in for gcr.io/distroless/nodejs24-debian12:nonroot: Node.js at /nodejs/bin/node and the shared
# libraries it links, CA certificates, and users root and nonroot (65532); no shell, no package manager.
# Built by tools/images/local-bases.sh from the Node stand-in.
ARG NODE_BASE
FROM ${NODE_BASE} AS rootfs
RUN set -eu; \
    mkdir -p /rootfs/nodejs/bin /rootfs/etc/ssl/certs /rootfs/tmp /rootfs/home/nonroot /rootfs/root; \
    cp /usr/local/bin/node /rootfs/nodejs/bin/node; \
    for lib in $(ldd /usr/local/bin/node | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do \
      mkdir -p "/rootfs$(dirname "$lib")"; cp -L "$lib" "/rootfs$lib"; \
    done; \
    cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/; \
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > /rootfs/etc/passwd; \
    printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' > /rootfs/etc/group; \
    chmod 1777 /rootfs/tmp; chmod 700 /rootfs/root; chown 65532:65532 /rootfs/home/nonroot; \
    chroot /rootfs /nodejs/bin/node --version

FROM scratch
COPY --from=rootfs /rootfs/ /
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 65532:65532
WORKDIR /home/nonroot
ENTRYPOINT ["/nodejs/bin/node"]
