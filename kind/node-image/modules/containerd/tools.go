//go:build tools

package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
)
