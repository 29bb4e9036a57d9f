#!/usr/bin/env bash
# What the official postgres image's docker-entrypoint.sh does, on this machine's PostgreSQL binaries:
# initialise PGDATA once (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB, POSTGRES_INITDB_ARGS,
# POSTGRES_HOST_AUTH_METHOD), then run the server on the Pod's address and port.
set -euo pipefail
: "${PGDATA:?}" "${TESTKIT_PG_BIN:?}" "${TESTKIT_LISTEN:?}" "${TESTKIT_PORT:?}" "${TESTKIT_SOCKET_DIR:?}"
bin="$TESTKIT_PG_BIN"
sock="$TESTKIT_SOCKET_DIR"
port="$TESTKIT_PORT"

# PostgreSQL refuses to run as root; the image switches to the postgres user (gosu), so do we.
as_postgres=()
if [[ "$(id -u)" == 0 ]]; then as_postgres=(setpriv --reuid=postgres --regid=postgres --init-groups --); fi

mkdir -p "$PGDATA" "$sock"
chmod 700 "$PGDATA"
if [[ "$(id -u)" == 0 ]]; then chown -R postgres:postgres "$PGDATA" "$sock"; fi

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  if [[ -z "${POSTGRES_PASSWORD:-}" && "${POSTGRES_HOST_AUTH_METHOD:-}" != "trust" ]]; then
    echo "Error: Database is uninitialized and superuser password is not specified." >&2
    echo "       You must specify POSTGRES_PASSWORD to a non-empty value for the superuser." >&2
    exit 1
  fi
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  pwfile="$sock/.pwfile"
  printf '%s' "${POSTGRES_PASSWORD:-}" > "$pwfile"
  if [[ "$(id -u)" == 0 ]]; then chown postgres:postgres "$pwfile"; fi
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of words, as in the image
  "${as_postgres[@]}" "$bin/initdb" -D "$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}" ${POSTGRES_INITDB_ARGS:-} >/dev/null
  rm -f "$pwfile"
  echo "host all all all ${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}" >> "$PGDATA/pg_hba.conf"
  # The set-up server listens on a socket of its own, so probes (which use $sock) only ever see the real one.
  init_sock="$sock/i"
  mkdir -p "$init_sock"
  if [[ "$(id -u)" == 0 ]]; then chown postgres:postgres "$init_sock"; fi
  "${as_postgres[@]}" "$bin/pg_ctl" -D "$PGDATA" -w -o "-c listen_addresses='' -k $init_sock -p $port" start >/dev/null
  if [[ "$db" != "postgres" ]]; then
    "${as_postgres[@]}" "$bin/psql" -h "$init_sock" -p "$port" -U "$user" -d postgres -v ON_ERROR_STOP=1 -q -c "CREATE DATABASE \"$db\""
  fi
  "${as_postgres[@]}" "$bin/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
  echo "PostgreSQL init process complete; ready for start up."
fi

exec "${as_postgres[@]}" "$bin/postgres" -D "$PGDATA" -c listen_addresses="$TESTKIT_LISTEN" -p "$port" -k "$sock"
