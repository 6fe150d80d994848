// Package webhook receives GitHub deliveries: it verifies the signature, records
// the delivery and enqueues its job in one transaction, and answers at once. It
// makes no GitHub call and does no analysis.
package webhook
