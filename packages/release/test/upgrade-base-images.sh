#!/usr/bin/env bash
# Builds the images of the commit the upgrade test starts from (upgrade.e2e.test.ts), tagged upgrade-base-<short sha>,
# once per machine:
#   bash packages/release/test/upgrade-base-images.sh <commit>
# Skips the build when all four images already carry the tag. Otherwise checks the commit out in a git worktree under
# /tmp (never inside this repository's tree, so no tool here ever sees a second copy of the sources), runs that
# commit's own tools/images/build.sh there (the images are what that commit shipped, built as it built them) and
# removes the worktree afterwards, also on failure. Prints the tag on stdout; progress on stderr.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
commit="${1:?usage: upgrade-base-images.sh <commit>}"
sha="$(git -C "$repo" rev-parse --verify --quiet "$commit^{commit}")" || { echo "upgrade-base: no commit $commit in $repo" >&2; exit 2; }
short="${sha:0:7}"
tag="upgrade-base-$short"
registry="ghcr.io/k8s-operators"
images=(maintpage-operator maintpage-page-server postgresql-operator nutanix-ahvvm-operator)

missing=()
for name in "${images[@]}"; do
  docker image inspect "$registry/$name:$tag" >/dev/null 2>&1 || missing+=("$name")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "upgrade-base: $registry/*:$tag already built, kept" >&2
  echo "$tag"
  exit 0
fi

worktree="$(mktemp -d /tmp/upgrade-base-"$short".XXXXXX)"
cleanup() {
  git -C "$repo" worktree remove --force "$worktree" >/dev/null 2>&1 || rm -rf "$worktree"
  git -C "$repo" worktree prune
}
trap cleanup EXIT
echo "upgrade-base: checking out $short in $worktree" >&2
git -C "$repo" worktree add --detach --quiet "$worktree" "$sha"
start=$SECONDS
echo "upgrade-base: building ${missing[*]} of $short as $registry/<image>:$tag with that commit's tools/images/build.sh" >&2
bash "$worktree/tools/images/build.sh" --registry "$registry" --tag "$tag" "${missing[@]}" >&2
echo "upgrade-base: $short's images built in $((SECONDS - start)) s" >&2
echo "$tag"
