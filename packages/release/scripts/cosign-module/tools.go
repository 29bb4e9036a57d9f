//go:build tools

// cosign's command line, which the release signs images and install.yaml with and the release tests verify with;
// listed here so that go.mod and go.sum pin it and everything it imports.
package tools

import (
	_ "github.com/sigstore/cosign/v3/cmd/cosign"
)
