#!/usr/bin/env bash
# debian-base.sh SUITE: builds k8s-operators.local/debian:SUITE, a Debian root filesystem from `debootstrap
# --variant=minbase` off Debian's mirror (bases/versions.env), for machines where no container registry answers. Built
# once per machine and suite: the root filesystem is also kept as a tarball under ~/.cache/operators-images, so a pruned
# engine re-imports it in seconds. Prints the tag on stdout; progress goes to stderr. Used for the images' bases
# (local-bases.sh, DEBIAN_SUITE) and for the PostgreSQL stand-ins of majors another suite carries (postgres-stand-in.sh:
# trixie for 17).
set -euo pipefail
suite="${1:?usage: debian-base.sh SUITE (e.g. bookworm, trixie)}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../progress.sh"
# Only the mirror is needed here; the rest of versions.env is the Node.js bases'.
mirror="$(sed -n 's/^DEBIAN_MIRROR=//p' "$here/bases/versions.env")"
# The tarball's name keeps Node.js's architecture names (x64, arm64), as local-bases.sh always named it.
arch="$(uname -m | sed 's/^x86_64$/x64/; s/^aarch64$/arm64/')"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/operators-images"

tag="k8s-operators.local/debian:${suite}"
if ! docker image inspect "$tag" >/dev/null 2>&1; then
  rootfs_tar="$cache/debian-${suite}-minbase-${arch}.tar"
  if [[ ! -f "$rootfs_tar" ]]; then
    command -v debootstrap >/dev/null 2>&1 || { echo "images: debootstrap is needed to build the Debian stand-in (apt-get install debootstrap)" >&2; exit 1; }
    [[ "$(id -u)" == 0 ]] || { echo "images: building the Debian stand-in needs root (debootstrap)" >&2; exit 1; }
    mkdir -p "$cache"
    rootfs="$(mktemp -d "${TMPDIR:-/tmp}/debian-rootfs.XXXXXX")"
    trap 'rm -rf "$rootfs"' EXIT
    with_progress "images: debootstrap $suite (minbase, about 200 MB from $mirror; a few minutes, once per machine)" "$cache/debootstrap-$suite.log" \
      debootstrap --variant=minbase --include=ca-certificates "$suite" "$rootfs" "$mirror"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log
    tar -C "$rootfs" --numeric-owner -cf "$rootfs_tar.tmp" .
    mv "$rootfs_tar.tmp" "$rootfs_tar"
    rm -rf "$rootfs"
    trap - EXIT
  fi
  echo "images: importing $tag" >&2
  docker import --change 'CMD ["/bin/bash"]' "$rootfs_tar" "$tag" >/dev/null
fi
echo "$tag"
