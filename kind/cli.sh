#!/usr/bin/env bash
# npm run kind -- <command>:
#   node-image                   build (or find) the kind node image for machines where kindest/node cannot be pulled
#   e2e <operator|all>           run operators' e2e specs on the kind cluster (npm run e2e:kind -- <operator|all>)
#   delete                       delete the e2e cluster (and the local registry kind/e2e.sh may have started)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
operators=(maintpage-operator postgresql-operator nutanix-ahvvm-operator)
usage() { sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

case "${1:-}" in
  node-image) exec bash "$repo/kind/node-image.sh" ;;
  e2e)
    target="${2:-}"
    [[ -n "$target" ]] || usage
    if [[ "$target" != all ]]; then exec bash "$repo/kind/e2e.sh" "$target"; fi
    failed=() summary=()
    for operator in "${operators[@]}"; do
      start=$SECONDS
      if bash "$repo/kind/e2e.sh" "$operator"; then result=passed; else result=FAILED; failed+=("$operator"); fi
      summary+=("$operator: $result in $((SECONDS - start)) s")
    done
    printf 'e2e on kind: %s\n' "${summary[@]}"
    [[ ${#failed[@]} -eq 0 ]]
    ;;
  delete)
    # shellcheck source=cluster-up.sh
    source "$repo/kind/cluster-up.sh"
    kind_cluster_down "${KIND_CLUSTER:-k8s-operators-e2e}"
    docker rm -f "$local_registry_name" >/dev/null 2>&1 || true
    ;;
  *) usage ;;
esac
