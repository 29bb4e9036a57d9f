# Stand-in for the seed article's page images (quay.io/daein/prodpage, quay.io/daein/maintpage), for kind clusters
# where no registry answers: one page on port 8080, as the MaintPage's default app port expects.
ARG BASE
FROM ${BASE}
ARG BODY
RUN apt-get update && apt-get install -y --no-install-recommends busybox && rm -rf /var/lib/apt/lists/* \
 && mkdir /www && printf '%s\n' "$BODY" > /www/index.html
USER 65532:65532
EXPOSE 8080
CMD ["busybox", "httpd", "-f", "-p", "8080", "-h", "/www"]
LABEL org.opencontainers.image.description="kind/stand-ins: a page server standing in for the seed's page image"
