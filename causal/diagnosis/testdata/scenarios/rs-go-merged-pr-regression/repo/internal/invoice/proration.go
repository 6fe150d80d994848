package invoice

// Prorate returns the share of a plan's price for the days left in the cycle.
func Prorate(priceCents, daysLeft, daysInCycle int64) int64 {
	return priceCents * daysLeft / daysInCycle
}
