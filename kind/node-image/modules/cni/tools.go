//go:build tools

package tools

import (
	_ "github.com/containernetworking/plugins/plugins/ipam/host-local"
	_ "github.com/containernetworking/plugins/plugins/main/loopback"
	_ "github.com/containernetworking/plugins/plugins/main/ptp"
	_ "github.com/containernetworking/plugins/plugins/meta/portmap"
)
