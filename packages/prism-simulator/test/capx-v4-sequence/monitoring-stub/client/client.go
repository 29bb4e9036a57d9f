// Package client is the part of monitoring-go-client/v4's client package that prism-go-client v0.8.0's v4/v4.go uses.
package client

// ApiClient holds what prism-go-client sets on it; it sends nothing.
type ApiClient struct {
	Host           string
	Port           int
	VerifySSL      bool
	DefaultHeaders map[string]string
}

func NewApiClient() *ApiClient {
	return &ApiClient{DefaultHeaders: map[string]string{}}
}

func (c *ApiClient) SetVerifySSL(verify bool) {
	c.VerifySSL = verify
}

func (c *ApiClient) AddDefaultHeader(key, value string) {
	c.DefaultHeaders[key] = value
}
