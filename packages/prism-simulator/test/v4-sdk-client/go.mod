module prism-simulator.test/v4-sdk-client

go 1.26.0

require (
	github.com/nutanix/ntnx-api-golang-clients/clustermgmt-go-client/v4 v4.2.2
	github.com/nutanix/ntnx-api-golang-clients/networking-go-client/v4 v4.2.1
	github.com/nutanix/ntnx-api-golang-clients/prism-go-client/v4 v4.2.1
	github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4 v4.2.1
	prism-simulator.test/sdk-decoding v0.0.0
)

require (
	github.com/google/uuid v1.3.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.1 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.1 // indirect
	github.com/sirupsen/logrus v1.9.0 // indirect
	golang.org/x/sys v0.0.0-20220715151400-c0bba94af5f8 // indirect
)

// The decoding check it shares with ../capx-v4-sequence.
replace prism-simulator.test/sdk-decoding => ../sdk-decoding
