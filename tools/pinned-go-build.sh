# Sourced by the scripts that build a per-machine tool from the Go module proxy (SeaweedFS, prometheus and promtool,
# age). Two functions every such build needs, so each script keeps only what it builds.

# take_build_lock LOCK_FILE WHO WHAT: holds an exclusive lock on LOCK_FILE (file descriptor 9) for the rest of the
# script, so that two test runs starting at once never build twice or see half-written programs. A second run says
# who it is waiting for instead of sitting silent. After it returns, check again whether the tool is there: the run
# that held the lock may just have built it.
take_build_lock() {
  local lock="$1" who="$2" what="$3"
  mkdir -p "$(dirname "$lock")"
  exec 9>"$lock"
  if ! flock -n 9; then
    echo "$who: another build of $what is running on this machine; waiting for it (lock $lock)" >&2
    flock 9
  fi
}

# use_pinned_modules: the go command builds exactly the modules pinned in the module's committed go.sum
# (-mod=readonly refuses any hash that is not there), static and reproducible (no cgo, no VCS stamp). The checksum
# database is not reachable from every machine that has the module proxy, and the committed go.sum makes it redundant.
use_pinned_modules() {
  export GOFLAGS="-mod=readonly -buildvcs=false"
  export GOSUMDB=off
  export GOWORK=off
  export CGO_ENABLED=0
}
