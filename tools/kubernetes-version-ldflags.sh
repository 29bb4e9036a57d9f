# Sourced by the scripts that build Kubernetes from its Go modules (testkit's control plane, kind's node image).
# kubernetes_version_ldflags VERSION BUILD_DATE prints the linker flags that stamp the version into the binaries, as
# Kubernetes' own release build does: without them they call themselves v0.0.0-master, and kubeadm refuses to init.
kubernetes_version_ldflags() {
  local version="$1" date="$2" minor flags="-s -w" pkg
  minor="${version#v1.}"
  minor="${minor%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
  done
  echo "$flags"
}
