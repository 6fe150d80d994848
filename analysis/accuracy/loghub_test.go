package accuracy

import "testing"

func loghubRows(t *testing.T, shared string) []row { return nil }
