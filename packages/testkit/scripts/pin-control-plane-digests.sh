#!/usr/bin/env bash
# Prints the rows of control-plane-digests.txt for the versions pinned in build-control-plane.sh, with the SHA-256
# digests upstream publishes next to each file: dl.k8s.io's <file>.sha256 for kube-controller-manager and kubectl,
# etcd's SHA256SUMS for its release archive. Run it on a machine with internet access, compare with a second source
# where you can, and commit the rows. It downloads no binary.
#   TESTKIT_ASSETS_BASE_URL  a mirror (as for build-control-plane.sh)
set -euo pipefail
scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
k8s="$(sed -n 's/^KUBERNETES_VERSION=\([^ ]*\).*/\1/p' "$scripts/build-control-plane.sh")"
etcd="$(sed -n 's/^ETCD_VERSION=\([^ ]*\).*/\1/p' "$scripts/build-control-plane.sh")"
base="${TESTKIT_ASSETS_BASE_URL:-https://}"
fetch() { curl -fsSL --connect-timeout 10 "${base%/}/$1"; }
hex() { grep -Eo '^[0-9a-f]{64}' | head -n 1; }
for arch in amd64 arm64; do
  for b in kube-controller-manager kubectl; do
    address="dl.k8s.io/release/$k8s/bin/linux/$arch/$b"
    digest="$(fetch "$address.sha256" | hex)"
    [[ -n "$digest" ]] || { echo "no digest in ${base%/}/$address.sha256" >&2; exit 1; }
    echo "linux-$arch  $b  $address  -  sha256  $digest"
  done
  archive="etcd-$etcd-linux-$arch.tar.gz"
  digest="$(fetch "github.com/etcd-io/etcd/releases/download/$etcd/SHA256SUMS" | awk -v a="$archive" '$2 == a { print $1 }' | hex)"
  [[ -n "$digest" ]] || { echo "no digest for $archive in etcd's SHA256SUMS" >&2; exit 1; }
  echo "linux-$arch  etcd  github.com/etcd-io/etcd/releases/download/$etcd/$archive  etcd-$etcd-linux-$arch/etcd  sha256  $digest"
done
