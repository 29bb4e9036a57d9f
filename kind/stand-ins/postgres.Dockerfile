# Stand-in for the official postgres:<major> image, for kind clusters where no registry answers (kind/e2e.sh pushes it
# to the local registry as docker.io/library/postgres:<major>), and for testkit's local node where this machine lacks
# the major's server (tools/images/postgres-stand-in.sh builds it). What the operator relies on is the same: the postgres
# user and group 999, PGDATA, POSTGRES_USER/PASSWORD/DB on first start, port 5432, the socket in /var/run/postgresql,
# pg_isready on PATH. The server is Debian's build of that major, on a base of the Debian suite that carries it:
# bookworm's 15; trixie's 17 on BASE=$(tools/images/debian-base.sh trixie) with MAJOR=17 (17.12, checked to start,
# initialise and answer pg_isready as user 999). The entry point is testkit's, which does what the official
# docker-entrypoint.sh does.
ARG BASE
FROM ${BASE}
ARG MAJOR=15
RUN groupadd -r -g 999 postgres && useradd -r -u 999 -g postgres -d /var/lib/postgresql -s /bin/bash postgres \
 && mkdir -p /etc/postgresql-common/createcluster.d \
 && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.d/no-main-cluster.conf \
 && apt-get update && apt-get install -y --no-install-recommends "postgresql-${MAJOR}" \
 && rm -rf /var/lib/apt/lists/* \
 && install -d -o postgres -g postgres -m 2777 /var/run/postgresql /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/${MAJOR}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data \
    TESTKIT_PG_BIN=/usr/lib/postgresql/${MAJOR}/bin TESTKIT_LISTEN=* TESTKIT_PORT=5432 TESTKIT_SOCKET_DIR=/var/run/postgresql
USER 999
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
LABEL org.opencontainers.image.description="kind/stand-ins: Debian's PostgreSQL in the shape of the official postgres image"
