//go:build tools

package tools

import (
	_ "github.com/distribution/distribution/v3/cmd/registry"
)
