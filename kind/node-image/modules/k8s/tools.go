//go:build tools

// The Kubernetes programs a kind node runs, built from the released k8s.io/kubernetes module.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubeadm"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
