#!/usr/bin/env bash
# Builds the local stand-ins for the images' base images, for machines where no container registry answers:
#   k8s-operators.local/debian:<suite>                    debootstrap --variant=minbase from Debian's mirror (debian-base.sh)
#   k8s-operators.local/node:<node>-<suite>-slim          that + Node.js and npm from the npm registry (node:*-slim)
#   k8s-operators.local/distroless-nodejs:<node>-<suite>-nonroot  Node.js and its libraries only (distroless/nodejs24)
# Each is built once per machine and version (bases/versions.env). Prints, on stdout, the build arguments
# that point the Dockerfile at the stand-ins; progress goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=/dev/null
source "$here/bases/versions.env"
source "$here/../progress.sh"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/operators-images"
mkdir -p "$cache"
case "$(uname -m)" in
  x86_64) arch=x64; node_integrity="$NODE_INTEGRITY_X64" ;;
  aarch64) arch=arm64; node_integrity="$NODE_INTEGRITY_ARM64" ;;
  *) echo "images: no Node.js stand-in for $(uname -m)" >&2; exit 1 ;;
esac

node_tag="k8s-operators.local/node:${NODE_VERSION}-${DEBIAN_SUITE}-slim"
distroless_tag="k8s-operators.local/distroless-nodejs:${NODE_VERSION}-${DEBIAN_SUITE}-nonroot"
have_image() { docker image inspect "$1" >/dev/null 2>&1; }

debian_tag="$(bash "$here/debian-base.sh" "$DEBIAN_SUITE")"

# The npm registry's tarball of PACKAGE@VERSION in the cache, checked against the pinned integrity value.
fetch_tarball() {
  local package="$1" version="$2" integrity="$3"
  local file="$cache/$package-$version.tgz"
  if [[ ! -f "$file" ]]; then
    echo "images: fetching $package@$version from the npm registry" >&2
    (cd "$cache" && npm pack --silent "$package@$version" >/dev/null)
  fi
  local actual
  actual="sha512-$(openssl dgst -sha512 -binary "$file" | base64 -w0)"
  if [[ "$actual" != "$integrity" ]]; then
    rm -f "$file"
    echo "images: $package@$version does not match the pinned integrity in bases/versions.env ($actual); refusing it" >&2
    exit 1
  fi
  basename "$file"
}

if ! have_image "$node_tag"; then
  node_tarball="$(fetch_tarball "node-linux-$arch" "$NODE_VERSION" "$node_integrity")"
  npm_tarball="$(fetch_tarball npm "$NPM_VERSION" "$NPM_INTEGRITY")"
  source "$here/engine.sh"
  with_progress "images: building $node_tag" "$cache/build-node.log" \
    image_build --network host -f "$here/bases/node.Dockerfile" -t "$node_tag" \
      --build-arg "DEBIAN_BASE=$debian_tag" --build-arg "NODE_TARBALL=$node_tarball" --build-arg "NPM_TARBALL=$npm_tarball" "$cache"
fi

if ! have_image "$distroless_tag"; then
  source "$here/engine.sh"
  with_progress "images: building $distroless_tag" "$cache/build-distroless.log" \
    image_build -f "$here/bases/distroless-nodejs.Dockerfile" -t "$distroless_tag" --build-arg "NODE_BASE=$node_tag" "$here/bases"
fi

echo "BUILD_BASE=$node_tag"
echo "RUNTIME_BASE=$distroless_tag"
echo "POSTGRES_RUNTIME_BASE=$node_tag"
# Debian's own client tools: bookworm has one major, 15. A dump of a server by a newer pg_dump does not restore into
# that server (pg_restore 17 sets transaction_timeout, which a 15 server refuses), so the image must carry the
# server's own major: this stand-in serves PostgreSQL 15 servers, as the local cluster's postgres runner starts them.
echo "POSTGRES_APT_SOURCE=debian"
echo "POSTGRES_MAJORS=15"
