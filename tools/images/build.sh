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

# image name | Dockerfile
images=(
  "maintpage-operator|packages/maintpage-operator/Dockerfile"
  "maintpage-page-server|packages/maintpage-operator/page-server.Dockerfile"
  "postgresql-operator|packages/postgresql-operator/Dockerfile"
  "nutanix-ahvvm-operator|packages/nutanix-ahvvm-operator/Dockerfile"
)
for name in "${wanted[@]}"; do
  printf '%s\n' "${images[@]}" | grep -q "^$name|" || { echo "images: no image named $name" >&2; exit 2; }
done

ensure_engine

# The published bases, as the Dockerfiles name them by default.
published_build_base="$(sed -n 's/^ARG BUILD_BASE=//p' "$repo/packages/maintpage-operator/Dockerfile")"
if [[ -z "$local_bases" ]] && ! docker image inspect "$published_build_base" >/dev/null 2>&1 \
    && ! timeout 60 docker pull -q "$published_build_base" >/dev/null 2>&1; then
  echo "images: no registry answers for $published_build_base: building on local stand-in bases (tools/images/local-bases.sh, built once per machine)" >&2
  local_bases=1
fi
declare -A base_args=()
if [[ -n "$local_bases" ]]; then
  while IFS='=' read -r key value; do base_args[$key]="$value"; done < <(bash "$here/local-bases.sh")
fi

# npm inside the build trusts what this machine trusts (a TLS-inspecting proxy's CA, say), through a build secret
# that never lands in a layer.
ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
secret_args=()
[[ -f "$ca_bundle" ]] && secret_args=(--secret "id=npm-ca,src=$ca_bundle")

logs="${XDG_CACHE_HOME:-$HOME/.cache}/operators-images/logs"
mkdir -p "$logs"
for entry in "${images[@]}"; do
  name="${entry%%|*}"
  dockerfile="${entry#*|}"
  if [[ ${#wanted[@]} -gt 0 ]] && ! printf '%s\n' "${wanted[@]}" | grep -qx "$name"; then continue; fi
  build_args=()
  if [[ -n "$local_bases" ]]; then
    build_args+=(--build-arg "BUILD_BASE=${base_args[BUILD_BASE]}")
    if [[ "$name" == postgresql-operator ]]; then
      build_args+=(--build-arg "RUNTIME_BASE=${base_args[POSTGRES_RUNTIME_BASE]}" --build-arg "POSTGRES_APT_SOURCE=${base_args[POSTGRES_APT_SOURCE]}"
        --build-arg "POSTGRES_MAJORS=${base_args[POSTGRES_MAJORS]}")
    else
      build_args+=(--build-arg "RUNTIME_BASE=${base_args[RUNTIME_BASE]}")
    fi
  fi
  ref="$registry/$name:$tag"
  with_progress "images: building $ref ($dockerfile)" "$logs/$name.log" \
    image_build --network host --progress plain "${no_cache[@]}" -f "$repo/$dockerfile" -t "$ref" "${build_args[@]}" "${secret_args[@]}" "$repo"
  echo "images: $ref: $(docker image inspect "$ref" --format '{{.Size}}' | awk '{ printf "%.0f MB", $1 / 1e6 }')" >&2
done
