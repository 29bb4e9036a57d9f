# Sourced by kind/e2e.sh: what a kind cluster needs on a machine where no container registry answers. Nothing here runs
# where kind/cluster.yaml's node image can be pulled (GitHub's runners).
#   kind_command                     kind on PATH, else the one kind/node-image/build-binaries.sh builds from source
#   kind_node_image_available CONFIG the node image CONFIG pins is here or can be pulled
#   local_cluster_config CONFIG AUDIT_DIR  prints the path of CONFIG adapted to a node image built here, its API server
#                                    writing its audit log into AUDIT_DIR (a directory of this machine)
#   local_cluster_registry KIND CLUSTER  serves the stand-in images from a registry beside CLUSTER, points its nodes at it
#                                    (and at it for localhost:5001, where kind_push_release pushes)
#   kind_push_release DIR VERSION    writes this tree's release into DIR, its images pushed to that registry by digest
#   local_kubectl_dir                the directory of the kubectl built with the node image (its Kubernetes minor)
local_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
local_cache="${XDG_CACHE_HOME:-$HOME/.cache}/operators-kind"
# The docker network kind puts its nodes on, made here with a subnet we choose and no masquerading: the nodes and
# the registry reach each other and this machine, and nothing else.
KIND_SUBNET="${KIND_SUBNET:-172.30.0.0/24}"
local_registry_name=kind-registry
local_registry_port=5001

# shellcheck source=node-image/kubernetes-minor.sh
source "$local_repo/kind/node-image/kubernetes-minor.sh"

kind_command() {
  if command -v kind >/dev/null 2>&1; then command -v kind; return; fi
  load_node_image_versions
  bash "$local_repo/kind/node-image/build-binaries.sh" "$local_cache/bin" kind >&2
  echo "$local_cache/bin/kind-$KIND_VERSION/kind"
}

local_kubectl_dir() {
  load_node_image_versions
  echo "$local_cache/bin/k8s-$KUBERNETES_VERSION"
}

kind_node_image_available() {
  local image
  image="$(awk '$1 == "image:" {print $2; exit}' "$1")"
  docker image inspect "$image" >/dev/null 2>&1 && return 0
  echo "kind: pulling $image" >&2
  timeout 600 docker pull "$image" >/dev/null 2>&1 && return 0
  echo "kind: $image cannot be pulled here; building the cluster from what this machine can build (kind/local-cluster.sh)" >&2
  return 1
}

local_cluster_config() {
  local pinned="$1" audit_dir="$2" image config
  if ! engine_runs_privileged; then
    echo "kind: this machine lacks CAP_SYS_RESOURCE, so kind's privileged nodes cannot start on this dockerd. Stop dockerd and let" >&2
    echo "      tools/images/engine.sh start it (npm run images does), which adds the runtime wrapper that drops that capability." >&2
    return 1
  fi
  image="$(bash "$local_repo/kind/node-image.sh")"
  if ! docker network inspect kind >/dev/null 2>&1; then
    echo "kind: creating the docker network kind on $KIND_SUBNET (no masquerading: traffic stays on this machine)" >&2
    docker network create kind --subnet "$KIND_SUBNET" -o com.docker.network.bridge.enable_ip_masquerade=false \
      -o com.docker.network.driver.mtu=1500 >/dev/null
  fi
  config="$(mktemp "${TMPDIR:-/tmp}/kind-config.XXXXXX")"
  # The API server keeps an audit log of the ServiceAccounts' requests, with testkit's local cluster's policy, in a
  # directory of this machine: the e2e specs' least-privilege checks compare it with the operators' RBAC.
  awk -v image="$image" -v audit_dir="$audit_dir" -v policy="$local_repo/packages/testkit/src/audit-policy.yaml" '
    $1 == "image:" && !done {
      sub(/image:.*/, "image: " image)
      print
      print "    extraMounts:"
      print "      - hostPath: " audit_dir
      print "        containerPath: /var/log/kubernetes/audit"
      print "      - hostPath: " policy
      print "        containerPath: /etc/kubernetes/audit-policy.yaml"
      print "        readOnly: true"
      done = 1
      next
    }
    { print }' "$pinned" > "$config"
  # The nodes pull the stand-ins through the local registry (local_cluster_registry writes the hosts files).
  cat >> "$config" <<'EOF'
containerdConfigPatches:
  - |-
    [plugins."io.containerd.grpc.v1.cri".registry]
      config_path = "/etc/containerd/certs.d"
EOF
  if ! has_sys_resource_capability; then
    # Without CAP_SYS_RESOURCE the node cannot give a container an OOM score below its own (runc fails on
    # oom_score_adj -998 for every Pod sandbox): containerd then raises such scores to the node's, as kind does
    # for rootless nodes.
    cat >> "$config" <<'EOF'
  - |-
    [plugins."io.containerd.grpc.v1.cri"]
      restrict_oom_score_adj = true
EOF
  fi
  # Rotated at 200 MiB, two kept: an hour's soak on such a cluster writes a few hundred MiB. The arguments as a map,
  # kubeadm v1beta3's form: kind writes v1beta3 before Kubernetes 1.36 and v1beta4 (a list) from it, and turns a map given
  # without an apiVersion into v1beta4's list itself.
  cat >> "$config" <<'EOF'
kubeadmConfigPatches:
  - |
    kind: ClusterConfiguration
    apiServer:
      extraArgs:
        audit-policy-file: /etc/kubernetes/audit-policy.yaml
        audit-log-path: /var/log/kubernetes/audit/audit.log
        audit-log-format: json
        audit-log-maxsize: "200"
        audit-log-maxbackup: "2"
      extraVolumes:
        - name: audit-policy
          hostPath: /etc/kubernetes/audit-policy.yaml
          mountPath: /etc/kubernetes/audit-policy.yaml
          readOnly: true
          pathType: File
        - name: audit-log
          hostPath: /var/log/kubernetes/audit
          mountPath: /var/log/kubernetes/audit
          pathType: DirectoryOrCreate
EOF
  if [[ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]]; then
    # Kubernetes 1.35+ refuses to run on cgroup v1 unless told otherwise; such hosts still exist (this one is).
    echo "kind: this host uses cgroup v1; the kubelet is told to accept it (failCgroupV1: false)" >&2
    cat >> "$config" <<'EOF'
  - |
    kind: KubeletConfiguration
    failCgroupV1: false
EOF
  fi
  echo "$config"
}

# stand_in IMAGE DOCKERFILE [BUILD_ARG...]: builds the stand-in for IMAGE and pushes it to the local registry, under
# the path the nodes' containerd asks the mirror for (/v2/<registry host>/<repository>).
stand_in() {
  local image="$1" dockerfile="$2" host
  shift 2
  host="${image%%/*}"
  local ref="127.0.0.1:$local_registry_port/$image"
  local args=()
  for arg in "$@"; do args+=(--build-arg "$arg"); done
  local context
  context="$(mktemp -d "${TMPDIR:-/tmp}/kind-stand-in.XXXXXX")"
  cp "$local_repo/packages/testkit/src/node/runners/postgres-entrypoint.sh" "$context/"
  with_progress "kind: stand-in $image" "$context/build.log" \
    image_build --network host -f "$local_repo/kind/stand-ins/$dockerfile" -t "$ref" --build-arg "BASE=$local_base" "${args[@]}" "$context"
  docker push -q "$ref" >/dev/null
  rm -rf "$context"
  local_registry_hosts["$host"]=1
}

local_cluster_registry() {
  local kind="$1" cluster="$2"
  source "$local_repo/tools/progress.sh"
  load_node_image_versions
  local_base="k8s-operators.local/debian:bookworm"
  bash "$local_repo/tools/images/local-bases.sh" >/dev/null
  if ! docker inspect "$local_registry_name" >/dev/null 2>&1; then
    bash "$local_repo/kind/node-image/build-binaries.sh" "$local_cache/bin" registry >&2
    local context
    context="$(mktemp -d "${TMPDIR:-/tmp}/kind-registry.XXXXXX")"
    cp "$local_cache/bin/registry-$REGISTRY_VERSION/registry" "$local_repo/kind/stand-ins/registry.yml" "$context/"
    image_build -q -f "$local_repo/kind/stand-ins/registry.Dockerfile" -t "k8s-operators.local/registry:$REGISTRY_VERSION" \
      --build-arg "BASE=$local_base" "$context" >/dev/null
    rm -rf "$context"
    echo "kind: starting the local registry $local_registry_name (127.0.0.1:$local_registry_port, and on the kind network)" >&2
    docker run -d --restart=always --name "$local_registry_name" --network kind -p "127.0.0.1:$local_registry_port:5000" \
      "k8s-operators.local/registry:$REGISTRY_VERSION" >/dev/null
  fi
  declare -gA local_registry_hosts=()
  # What the specs and the seed samples pull: kept in step with them by kind/stand-ins.test.ts.
  stand_in docker.io/library/postgres:15 postgres.Dockerfile MAJOR=15
  # trixie carries 17 (bookworm only 15); the later BASE build argument wins over stand_in's bookworm one.
  stand_in docker.io/library/postgres:17 postgres.Dockerfile MAJOR=17 "BASE=$(bash "$local_repo/tools/images/debian-base.sh" trixie)"
  stand_in docker.io/library/busybox:1.37 busybox.Dockerfile
  stand_in docker.io/curlimages/curl:8.11.1 curl.Dockerfile
  stand_in quay.io/daein/prodpage:latest page.Dockerfile "BODY=Production Page !"
  stand_in quay.io/daein/prodpage:v1 page.Dockerfile "BODY=Production Page !"
  stand_in quay.io/daein/maintpage:latest page.Dockerfile "BODY=Maintenance Page !"
  local node host server
  for node in $("$kind" get nodes --name "$cluster"); do
    # What kind/e2e.sh --install pushes to this machine's localhost:$local_registry_port is the same registry, which the
    # nodes reach by its name on the kind network.
    docker exec -i "$node" bash -c "mkdir -p /etc/containerd/certs.d/localhost:$local_registry_port && cat > /etc/containerd/certs.d/localhost:$local_registry_port/hosts.toml" <<EOF
# Written by kind/local-cluster.sh: localhost:$local_registry_port is the local registry beside the cluster.
[host."http://$local_registry_name:5000"]
  capabilities = ["pull", "resolve"]
EOF
    for host in "${!local_registry_hosts[@]}"; do
      server="https://$host"
      [[ "$host" == docker.io ]] && server="https://registry-1.docker.io"
      docker exec -i "$node" bash -c "mkdir -p /etc/containerd/certs.d/$host && cat > /etc/containerd/certs.d/$host/hosts.toml" <<EOF
# Written by kind/local-cluster.sh: $host's images come from the local registry beside the cluster.
server = "$server"
[host."http://$local_registry_name:5000/v2/$host"]
  capabilities = ["pull", "resolve"]
  override_path = true
EOF
    done
  done
}

# kind_push_release DIR VERSION: this tree's release (npm run release -- --push) in DIR, its four images pushed to the
# local registry as localhost:<port>/k8s-operators/<image>:VERSION and pinned in install.yaml and the charts by the
# digests the pushes returned.
kind_push_release() {
  local dir="$1" version="$2"
  rm -rf "$dir"
  (cd "$local_repo" && npm run -s release -- --version "$version" --registry "localhost:$local_registry_port/k8s-operators" --push --out "$dir")
}
