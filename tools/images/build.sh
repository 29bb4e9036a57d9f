#!/usr/bin/env bash
# Builds the project's images with the local Docker engine (npm run images):
#   npm run images [-- --tag TAG] [--registry REGISTRY] [--local-bases] [--no-cache] [IMAGE...]
# IMAGE: maintpage-operator, maintpage-page-server, postgresql-operator, nutanix-ahvvm-operator (default: all).
# Starts dockerd when it is installed but not running. Where the published base images cannot be pulled (no registry
# answers), builds local stand-ins for them first (tools/images/local-bases.sh, once per machine) and says so;
# --local-bases uses the stand-ins even where a registry answers.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
source "$here/engine.sh"
source "$here/../progress.sh"

registry="ghcr.io/k8s-operators"
tag="0.1.0"
local_bases=""
no_cache=()
wanted=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --registry) registry="$2"; shift 2 ;;
    --local-bases) local_bases=1; shift ;;
    --no-cache) no_cache=(--no-cache); shift ;;
    -*) echo "usage: npm run images [-- --tag TAG] [--registry REGISTRY] [--local-bases] [--no-cache] [IMAGE...]" >&2; exit 2 ;;
    *) wanted+=("$1"); shift ;;
  esac
done

# Each image is the Dockerfile's target of the same name; all four share its build stage.
dockerfile="$repo/Dockerfile"
images=(maintpage-operator maintpage-page-server postgresql-operator nutanix-ahvvm-operator)
for name in "${wanted[@]}"; do
  printf '%s\n' "${images[@]}" | grep -qx "$name" || { echo "images: no image named $name" >&2; exit 2; }
done

ensure_engine

# The published bases, as the Dockerfile names them by default.
published_build_base="$(sed -n 's/^ARG BUILD_BASE=//p' "$dockerfile")"
if [[ -z "$local_bases" ]] && ! docker image inspect "$published_build_base" >/dev/null 2>&1 \
    && ! timeout 60 docker pull -q "$published_build_base" >/dev/null 2>&1; then
  echo "images: no registry answers for $published_build_base: building on local stand-in bases (tools/images/local-bases.sh, built once per machine)" >&2
  local_bases=1
fi
# local-bases.sh prints the Dockerfile's base arguments (KEY=VALUE), each image taking the ones its target names.
build_args=()
if [[ -n "$local_bases" ]]; then
  while IFS= read -r arg; do build_args+=(--build-arg "$arg"); done < <(bash "$here/local-bases.sh")
fi

# npm inside the build trusts what this machine trusts (a TLS-inspecting proxy's CA, say), through a build secret
# that never lands in a layer.
ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
secret_args=()
[[ -f "$ca_bundle" ]] && secret_args=(--secret "id=npm-ca,src=$ca_bundle")

logs="${XDG_CACHE_HOME:-$HOME/.cache}/operators-images/logs"
mkdir -p "$logs"
for name in "${images[@]}"; do
  if [[ ${#wanted[@]} -gt 0 ]] && ! printf '%s\n' "${wanted[@]}" | grep -qx "$name"; then continue; fi
  ref="$registry/$name:$tag"
  with_progress "images: building $ref (Dockerfile, target $name)" "$logs/$name.log" \
    image_build --network host --progress plain "${no_cache[@]}" -f "$dockerfile" --target "$name" -t "$ref" "${build_args[@]}" "${secret_args[@]}" "$repo"
  echo "images: $ref: $(docker image inspect "$ref" --format '{{.Size}}' | awk '{ printf "%.0f MB", $1 / 1e6 }')" >&2
done

# testkit's local node runs a postgres:17 Pod (the specs start one) from a stand-in where this machine has no
# PostgreSQL 17 server: built here, once per machine, rather than inside the first spec that needs it, where a cold
# machine's debootstrap of trixie (1-8 min) would count against the spec's time.
if [[ -n "$local_bases" && ${#wanted[@]} -eq 0 && ! -x /usr/lib/postgresql/17/bin/postgres ]]; then
  bash "$here/postgres-stand-in.sh" 17 >/dev/null
fi
