package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the garbage collector's target for `flightd serve` (GOGC). A server's
// live heap is small next to what a scan allocates per second (decoded batches on their way
// to the client), so Go's default of 100 collects several times per query; at 400 a TPC-H
// lineitem transfer spends 10-15% less CPU (bench/RESULTS.md). The caches (--cache-bytes)
// are most of the live heap, so the peak heap stays bounded by about five times them plus
// the queries' working memory.
const defaultGCPercent = 400

// applyGCPercent sets the collector's target to percent, unless the GOGC environment
// variable is set (the operator's choice wins). A negative percent turns the collector
// off, as GOGC=off does; pair that with GOMEMLIMIT.
func applyGCPercent(percent int) {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(percent)
}
