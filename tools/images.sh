#!/usr/bin/env bash
# Builds every image of the project with the local Docker engine: npm run images [-- --tag TAG] [--registry REG]
# Without an engine it says so and exits 1; CI builds and publishes the images (.github/workflows/images.yml).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
registry="ghcr.io/k8s-operators"
tag="0.1.0"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --registry) registry="$2"; shift 2 ;;
    *) echo "usage: npm run images [-- --tag TAG] [--registry REGISTRY]" >&2; exit 2 ;;
  esac
done

# image name | Dockerfile
images=(
  "maintpage-operator|packages/maintpage-operator/Dockerfile"
  "maintpage-page-server|packages/maintpage-operator/page-server.Dockerfile"
  "postgresql-operator|packages/postgresql-operator/Dockerfile"
  "nutanix-ahvvm-operator|packages/nutanix-ahvvm-operator/Dockerfile"
)

if ! command -v docker >/dev/null 2>&1 || ! reason="$(docker info 2>&1 >/dev/null)"; then
  echo "npm run images: no Docker engine is reachable here${reason:+ (docker info: ${reason%%$'\n'*})}." >&2
  echo "Images can only be built where a Docker engine runs; GitHub Actions builds them (images.yml)." >&2
  echo "Locally, the testkit cluster runs the operators from their built dist/ instead (npm run build)." >&2
  exit 1
fi

for entry in "${images[@]}"; do
  name="${entry%%|*}"
  dockerfile="${entry#*|}"
  echo "==> $registry/$name:$tag ($dockerfile)"
  docker build -f "$repo/$dockerfile" -t "$registry/$name:$tag" "$repo"
done
