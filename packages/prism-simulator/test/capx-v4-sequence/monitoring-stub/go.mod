// A stand-in for github.com/nutanix/ntnx-api-golang-clients/monitoring-go-client/v4 v4.2.2, which CAPX v1.10.3's go.mod
// pins but the Go module proxy does not serve (no version of it: "403 This module version is not available"). CAPX
// never calls the monitoring (alerts) API; prism-go-client v0.8.0 only builds an alerts client next to the others
// (v4/v4.go:170,293-305) and offers an Alerts service (converged/v4/alerts.go). This module has just the names those
// two files use, and every call through it fails, so the CAPX sequence would fail if it ever reached it.
module github.com/nutanix/ntnx-api-golang-clients/monitoring-go-client/v4

go 1.21
