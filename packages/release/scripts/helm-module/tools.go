//go:build tools

// Helm's command line, which the release's chart tests run (helm lint, helm template, helm install/upgrade/rollback
// against a real API server); listed here so that go.mod and go.sum pin it and everything it imports.
package tools

import (
	_ "helm.sh/helm/v4/cmd/helm"
)
