#!/usr/bin/env bash
# postgres-stand-in.sh MAJOR: builds k8s-operators.local/postgres:<MAJOR>-<suite>-<hash>, kind/stand-ins/postgres.Dockerfile
# (Debian's PostgreSQL of that major in the shape of the official postgres image) on a local base of the Debian suite
# that carries the major (debian-base.sh), for machines without that major's server and where no registry answers.
# testkit's local node runs it for a postgres:<MAJOR> Pod when this machine has no /usr/lib/postgresql/<MAJOR>.
# Built once per machine: the engine keeps the image, the suite's root filesystem is kept under ~/.cache/operators-images;
# the tag's hash is of the Dockerfile and the entry point, so a change to either builds a new image rather than running
# a stale one. Prints the tag on stdout; progress goes to stderr.
# Exit status 3: no Debian suite carries that major (bookworm has 15, trixie 17; none has 16), so there is no stand-in.
set -euo pipefail
major="${1:?usage: postgres-stand-in.sh MAJOR (15 or 17)}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

case "$major" in
  15) suite=bookworm ;;
  17) suite=trixie ;;
  *) echo "images: no Debian suite carries PostgreSQL $major (bookworm has 15, trixie 17), so there is no local stand-in for postgres:$major" >&2; exit 3 ;;
esac

dockerfile="$repo/kind/stand-ins/postgres.Dockerfile"
entrypoint="$repo/packages/testkit/src/node/runners/postgres-entrypoint.sh"
hash="$(cat "$dockerfile" "$entrypoint" | sha256sum | cut -c1-12)"
tag="k8s-operators.local/postgres:${major}-${suite}-${hash}"
if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "$tag"
  exit 0
fi

source "$here/../progress.sh"
source "$here/engine.sh"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/operators-images"
mkdir -p "$cache"
# Two test processes asking at once build it once: the second waits here, then finds the image.
exec 9>"$cache/postgres-stand-in-$major.lock"
flock 9
if ! docker image inspect "$tag" >/dev/null 2>&1; then
  base="$(bash "$here/debian-base.sh" "$suite")"
  context="$(mktemp -d "${TMPDIR:-/tmp}/postgres-stand-in.XXXXXX")"
  trap 'rm -rf "$context"' EXIT
  cp "$entrypoint" "$context/"
  with_progress "images: building $tag (Debian $suite's postgresql-$major; a minute or two, once per machine)" "$cache/build-postgres-$major.log" \
    image_build --network host -f "$dockerfile" -t "$tag" --build-arg "BASE=$base" --build-arg "MAJOR=$major" "$context"
  # The stand-ins of an older Dockerfile or entry point are not run again: their tags go (an image a container still
  # uses stays until it is not).
  docker image ls --format '{{.Repository}}:{{.Tag}}' k8s-operators.local/postgres | grep "^k8s-operators.local/postgres:${major}-${suite}-" \
    | grep -vx "$tag" | xargs -r docker rmi >/dev/null 2>&1 || true
fi
echo "$tag"
