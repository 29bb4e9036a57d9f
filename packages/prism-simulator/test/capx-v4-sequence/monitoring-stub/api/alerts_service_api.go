// Package api is the part of monitoring-go-client/v4's api package that prism-go-client v0.8.0 uses: every call fails.
package api

import (
	"context"
	"errors"

	"github.com/nutanix/ntnx-api-golang-clients/monitoring-go-client/v4/client"
	"github.com/nutanix/ntnx-api-golang-clients/monitoring-go-client/v4/models/monitoring/v4/request/alerts"
	"github.com/nutanix/ntnx-api-golang-clients/monitoring-go-client/v4/models/monitoring/v4/serviceability"
)

// ErrStub is what every call answers: CAPX's machine sequence never calls the monitoring API.
var ErrStub = errors.New("monitoring-go-client stub: the alerts API is not part of CAPX's machine sequence")

type AlertsServiceApi struct {
	ApiClient *client.ApiClient
}

func NewAlertsServiceApi(apiClient *client.ApiClient) *AlertsServiceApi {
	return &AlertsServiceApi{ApiClient: apiClient}
}

func (api *AlertsServiceApi) GetAlertById(ctx context.Context, request *alerts.GetAlertByIdRequest, args ...map[string]interface{}) (*serviceability.GetAlertApiResponse, error) {
	return nil, ErrStub
}

func (api *AlertsServiceApi) ListAlerts(ctx context.Context, request *alerts.ListAlertsRequest, args ...map[string]interface{}) (*serviceability.ListAlertsApiResponse, error) {
	return nil, ErrStub
}
