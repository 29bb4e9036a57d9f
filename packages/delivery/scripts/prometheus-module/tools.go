//go:build tools

// Package tools only pins github.com/prometheus/prometheus (go.mod, go.sum) for ../build-promtool.sh, which
// builds the commands imported below from this module. Nothing imports this package.
package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
