#!/usr/bin/env bash
# npm run kind -- <command>:
#   node-image [MINOR]           build (or find) the kind node image for machines where kindest/node cannot be pulled,
#                                of the project's Kubernetes or of MINOR (1.34: one pinned under kind/node-image/kubernetes/)
#   e2e <operator|all> [--kubernetes MINOR] [--install kustomize|manifest|chart]
#                                run operators' e2e specs on the kind cluster (npm run e2e:kind -- <operator|all>); with
#                                a MINOR, on a cluster of that Kubernetes (where the node image is built here); with
#                                --install, installed from a release pushed to the local registry (kind/e2e.sh)
#   delete                       delete the e2e clusters (and the local registry kind/e2e.sh may have started)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
operators=(maintpage-operator postgresql-operator nutanix-ahvvm-operator)
usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

case "${1:-}" in
  node-image) exec bash "$repo/kind/node-image.sh" "${@:2}" ;;
  e2e)
    target="${2:-}"
    [[ -n "$target" ]] || usage
    shift 2
    while [[ $# -gt 0 ]]; do
      case "$1" in
        --kubernetes)
          [[ $# -ge 2 ]] || usage
          # Refused here, with the minors that are pinned, before any cluster is touched.
          (source "$repo/kind/node-image/kubernetes-minor.sh" && load_node_image_versions "$2")
          export KIND_KUBERNETES_MINOR="$2"
          shift 2 ;;
        --install)
          [[ $# -ge 2 ]] || usage
          case "$2" in kustomize|manifest|chart) ;; *) echo "kind: --install $2: the ways are kustomize, manifest and chart" >&2; exit 2 ;; esac
          export E2E_INSTALL="$2"
          shift 2 ;;
        *) usage ;;
      esac
    done
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
    if [[ -n "${KIND_CLUSTER:-}" ]]; then
      kind_cluster_down "$KIND_CLUSTER"
    else
      # The default way's cluster and each release way's (kind/e2e.sh --install).
      for cluster in k8s-operators-e2e k8s-operators-e2e-manifest k8s-operators-e2e-chart; do
        if "$(kind_command)" get clusters 2>/dev/null | grep -qx "$cluster"; then kind_cluster_down "$cluster"; fi
      done
    fi
    docker rm -f "$local_registry_name" >/dev/null 2>&1 || true
    ;;
  *) usage ;;
esac
