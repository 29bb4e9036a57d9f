#!/usr/bin/env bash
# Pins another Kubernetes minor for kind/node-image.sh, as that release's own kubeadm would deploy it. Writes
# kind/node-image/kubernetes/<minor>/ from the release's k8s.io/kubernetes module (Go module proxy):
#   versions.env                   KUBERNETES_VERSION, and the etcd and CoreDNS versions of its kubeadm
#                                  (cmd/kubeadm/app/constants: DefaultEtcdVersion, CoreDNSVersion)
#   modules/k8s                    the release, each staging module (k8s.io/api, ...) pinned to its published twin
#                                  v0.<minor>.<patch>, as k8s.io/kubernetes replaces them with local paths
#   modules/etcd, modules/coredns  those versions
# each with the go.sum `go mod tidy` writes, which build-binaries.sh then builds from with -mod=readonly.
# The project's own minor is not pinned here: it is versions.env and modules/ at the top.
# Usage: kind/node-image/pin-kubernetes-minor.sh v1.34.4
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="${1:-}"
if [[ ! "$version" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "usage: kind/node-image/pin-kubernetes-minor.sh v1.<minor>.<patch> (a Kubernetes release, such as v1.34.4)" >&2
  exit 2
fi
minor="1.${BASH_REMATCH[1]}"
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
# shellcheck source=kubernetes-minor.sh
source "$here/kubernetes-minor.sh"
if [[ "$minor" == "$(project_kubernetes_minor)" ]]; then
  echo "kind node image: $minor is the project's own minor, pinned in kind/node-image/versions.env and modules/; change it there" >&2
  exit 2
fi

export GOSUMDB=off GOFLAGS=-mod=mod
echo "kind node image: reading k8s.io/kubernetes@$version from the Go module proxy" >&2
source_dir="$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
constants="$source_dir/cmd/kubeadm/app/constants/constants.go"
etcd_tag="$(sed -n 's/^[[:space:]]*DefaultEtcdVersion = "\(.*\)"$/\1/p' "$constants")"
coredns="$(sed -n 's/^[[:space:]]*CoreDNSVersion = "\(.*\)"$/\1/p' "$constants")"
# The CoreDNS check first: the etcd one's match is the one read after it.
if [[ ! "$coredns" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ || ! "$etcd_tag" =~ ^([0-9]+\.[0-9]+\.[0-9]+)-[0-9]+$ ]]; then
  echo "kind node image: kubeadm $version's constants no longer read as expected (etcd '$etcd_tag', CoreDNS '$coredns'); see $constants" >&2
  exit 1
fi
etcd="v${BASH_REMATCH[1]}"
go_directive="$(sed -n 's/^go //p' "$here/modules/k8s/go.mod")"

out="$here/kubernetes/$minor"
work="$out.new"
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/modules"

# tidy_module NAME: writes modules/NAME's go.sum (and its indirect requirements) from the go.mod written before it.
tidy_module() {
  # The same imports as the project's own module: a link, so the two cannot drift.
  ln -s "../../../../modules/$1/tools.go" "$work/modules/$1/tools.go"
  echo "kind node image: go mod tidy for $1 ($2)" >&2
  (cd "$work/modules/$1" && go mod tidy)
}
mkdir -p "$work/modules/k8s" "$work/modules/etcd" "$work/modules/coredns"
{
  printf 'module kind-node.local/k8s\n\ngo %s\n\nrequire k8s.io/kubernetes %s\n' "$go_directive" "$version"
  sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\) => \./staging/.*#\1#p' "$source_dir/go.mod" \
    | while read -r module; do printf '\nreplace %s => %s %s\n' "$module" "$module" "$staging"; done
} > "$work/modules/k8s/go.mod"
tidy_module k8s "$version"
printf 'module kind-node.local/etcd\n\ngo %s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$go_directive" "$etcd" > "$work/modules/etcd/go.mod"
tidy_module etcd "$etcd"
printf 'module kind-node.local/coredns\n\ngo %s\n\nrequire github.com/coredns/coredns %s\n' "$go_directive" "$coredns" > "$work/modules/coredns/go.mod"
tidy_module coredns "$coredns"

cat > "$work/versions.env" <<EOF
# Kubernetes $minor for kind/node-image.sh (KIND_KUBERNETES_MINOR=$minor), over versions.env one level up: the release,
# and the etcd and CoreDNS its kubeadm deploys (cmd/kubeadm/app/constants). Written by pin-kubernetes-minor.sh; the
# three move together, so rerun it for another patch rather than editing a line (Renovate leaves this file alone).
# renovate: datasource=github-tags depName=kubernetes/kubernetes
KUBERNETES_VERSION=$version
# renovate: datasource=go depName=go.etcd.io/etcd/server/v3
ETCD_VERSION=$etcd
ETCD_IMAGE_TAG=$etcd_tag
# renovate: datasource=go depName=github.com/coredns/coredns
COREDNS_VERSION=$coredns
EOF
rm -rf "$out"
mv "$work" "$out"
trap - EXIT
echo "kind node image: Kubernetes $minor pinned in kind/node-image/kubernetes/$minor: $version, etcd $etcd_tag, CoreDNS $coredns" >&2
