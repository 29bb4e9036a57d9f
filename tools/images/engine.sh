# Sourced by the image scripts: makes sure a Docker engine answers and sets `image_build` to a build command with
# BuildKit (secrets and cache mounts need it).
#   ensure_engine          starts dockerd when it is installed but not running (as root), or says what to install
#   engine_runs_privileged whether a privileged container (a kind node) can start on this engine
#   image_build ARGS...    docker build with BuildKit: `docker buildx build --load` where buildx is installed, else
#                          a Docker client older than 23 with BuildKit built in (Debian's docker.io ships one)

engine_log="${XDG_CACHE_HOME:-$HOME/.cache}/operators-images/dockerd.log"

ensure_engine() {
  if ! command -v docker >/dev/null 2>&1; then
    echo "images: no Docker client. Install Docker's engine (Debian/Ubuntu: apt-get install docker.io; elsewhere: https://docs.docker.com/engine/install/)" >&2
    return 1
  fi
  docker info >/dev/null 2>&1 && return 0
  if ! command -v dockerd >/dev/null 2>&1; then
    echo "images: the Docker client cannot reach an engine and dockerd is not installed (Debian/Ubuntu: apt-get install docker.io)" >&2
    return 1
  fi
  if [[ "$(id -u)" != 0 ]]; then
    echo "images: dockerd is installed but not running; start it (sudo systemctl start docker) or add yourself to the docker group" >&2
    return 1
  fi
  mkdir -p "$(dirname "$engine_log")"
  echo "images: starting dockerd (log: $engine_log)" >&2
  # cgroupfs: machines without systemd as PID 1 (containers, CI sandboxes) have no systemd cgroup manager.
  local flags=(--exec-opt native.cgroupdriver=cgroupfs)
  if ! has_sys_resource_capability; then
    # Privileged containers (kind nodes) fail here without the wrapper. It is copied out of the checkout, which may
    # go away while dockerd keeps running.
    local wrapper="$(dirname "$engine_log")/runc-without-sys-resource"
    cp "$(dirname "${BASH_SOURCE[0]}")/runc-without-sys-resource" "$wrapper"
    echo "images: this machine lacks CAP_SYS_RESOURCE; dockerd's default runtime drops it from containers' specs ($wrapper)" >&2
    flags+=(--add-runtime "runc-without-sys-resource=$wrapper" --default-runtime runc-without-sys-resource)
  fi
  setsid dockerd "${flags[@]}" >>"$engine_log" 2>&1 < /dev/null &
  local waited=0
  until docker info >/dev/null 2>&1; do
    sleep 1
    waited=$((waited + 1))
    if (( waited >= 60 )); then
      echo "images: dockerd did not answer within 60 s; its log ends with:" >&2
      tail -n 20 "$engine_log" >&2
      return 1
    fi
  done
}

# CAP_SYS_RESOURCE (bit 24) in this process's bounding set: what a privileged container would be given.
has_sys_resource_capability() {
  local bounding
  bounding="$(awk '/^CapBnd:/ {print $2}' /proc/self/status)"
  (( (16#${bounding:-0} >> 24) & 1 ))
}

# Privileged containers can start: the capability is there, or dockerd runs the wrapper ensure_engine registers.
engine_runs_privileged() {
  has_sys_resource_capability || [[ "$(docker info --format '{{.DefaultRuntime}}' 2>/dev/null)" == runc-without-sys-resource ]]
}

image_build() {
  if docker buildx version >/dev/null 2>&1; then
    docker buildx build --load "$@"
    return
  fi
  local client version
  while IFS= read -r client; do
    version="$("$client" version --format '{{.Client.Version}}' 2>/dev/null || true)"
    if [[ -n "$version" && "${version%%.*}" -lt 23 ]]; then
      DOCKER_BUILDKIT=1 "$client" build "$@"
      return
    fi
  done < <(type -ap docker; [[ -x /usr/bin/docker ]] && echo /usr/bin/docker)
  echo "images: building needs BuildKit: install the buildx plugin (docker-buildx), or Debian's docker.io client" >&2
  return 1
}
