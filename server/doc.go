// Package server runs Polylane's HTTP server: its lifecycle, the chi router and
// middleware (request id, panic recovery, access logs), /healthz, /readyz and
// /metrics, and the wiring of the webhook, the worker and the dashboard.
package server
