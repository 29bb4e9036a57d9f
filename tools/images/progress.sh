# Sourced by the image scripts. with_progress LABEL LOG COMMAND...: runs COMMAND with its output in LOG and prints
# what it is doing every 15 s (elapsed time and LOG's last line), so a long first build never looks stuck; on failure
# it shows the end of LOG.
with_progress() {
  local label="$1" log="$2"
  shift 2
  local start=$SECONDS
  echo "images: $label ..." >&2
  "$@" >"$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    local i
    for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    if kill -0 "$pid" 2>/dev/null; then
      local last
      last="$(tail -n 1 "$log" 2>/dev/null | tr -d '\r' | cut -c1-120)"
      echo "images: $label: $((SECONDS - start)) s${last:+ - $last}" >&2
    fi
  done
  if wait "$pid"; then
    echo "images: $label: done in $((SECONDS - start)) s" >&2
  else
    local status=$?
    echo "images: $label failed after $((SECONDS - start)) s (exit $status); the end of $log:" >&2
    tail -n 40 "$log" >&2
    return "$status"
  fi
}
