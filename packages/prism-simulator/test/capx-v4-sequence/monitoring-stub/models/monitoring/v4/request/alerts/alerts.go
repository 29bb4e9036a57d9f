// Package alerts has the request types prism-go-client v0.8.0's converged/v4/alerts.go builds.
package alerts

type GetAlertByIdRequest struct {
	ExtId *string
}

type ListAlertsRequest struct {
	Page_    *int
	Limit_   *int
	Filter_  *string
	Orderby_ *string
	Select_  *string
}
