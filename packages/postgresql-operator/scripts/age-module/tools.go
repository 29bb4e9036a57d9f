//go:build tools

// The reference age tool and its key generator, which the encryption tests run against the operator's own age
// implementation; listed here so that go.mod and go.sum pin them and everything they import.
package tools

import (
	_ "filippo.io/age/cmd/age"
	_ "filippo.io/age/cmd/age-keygen"
)
