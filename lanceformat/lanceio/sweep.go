package lanceio

import (
	"context"
	"time"
)

// TempSweeper is the optional capability of stores that keep temporary objects of their own
// which List does not show (the local file store writes a temporary file and links it into
// place): a writer killed between the two leaves one behind. Dataset cleanup calls it, found
// by type assertion.
type TempSweeper interface {
	// SweepTemp removes the store's temporary objects under prefix ("" for all) last
	// modified before olderThan and returns how many it removed.
	SweepTemp(ctx context.Context, prefix string, olderThan time.Time) (int, error)
}
