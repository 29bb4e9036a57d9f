# Sourced by the scripts that build things (images, the control plane). with_progress LABEL LOG COMMAND...: runs
# COMMAND with its output in LOG and prints, on stderr, what it is doing every 15 s (elapsed time and LOG's last line),
# so a long first build never looks stuck; on failure it shows the end of LOG. LABEL says who and what, e.g.
# "images: building X". PROGRESS_INTERVAL_SECONDS changes the 15 s.
with_progress() {
  local label="$1" log="$2"
  shift 2
  local start=$SECONDS
  echo "$label ..." >&2
  "$@" >"$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    local waited=0
    while (( waited < ${PROGRESS_INTERVAL_SECONDS:-15} )) && kill -0 "$pid" 2>/dev/null; do
      sleep 1
      waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
      local last
      last="$(tail -n 1 "$log" 2>/dev/null | tr -d '\r' | cut -c1-120)"
      echo "$label: $((SECONDS - start)) s${last:+ - $last}" >&2
    fi
  done
  if wait "$pid"; then
    echo "$label: done in $((SECONDS - start)) s" >&2
  else
    local status=$?
    echo "$label failed after $((SECONDS - start)) s (exit $status); the end of $log:" >&2
    tail -n 40 "$log" >&2
    return "$status"
  fi
}
