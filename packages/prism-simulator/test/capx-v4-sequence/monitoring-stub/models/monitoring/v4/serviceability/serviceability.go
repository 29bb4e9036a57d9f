// Package serviceability has the model names prism-go-client v0.8.0's converged client is instantiated with.
package serviceability

type Alert struct {
	ExtId *string `json:"extId,omitempty"`
}

type GetAlertApiResponse struct {
	Data any `json:"data,omitempty"`
}

func (p *GetAlertApiResponse) GetData() any { return p.Data }

type ListAlertsApiResponse struct {
	Data any `json:"data,omitempty"`
}

func (p *ListAlertsApiResponse) GetData() any { return p.Data }
