package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the garbage collector's target for `flightd serve` (GOGC). A server's
// live heap is small next to what a scan allocates per second (decoded batches on their way
// to the client), so Go's default of 100 collects several times per query; at 400 a TPC-H
// lineitem transfer spends 10-15% less CPU (bench/RESULTS.md). The caches (--cache-bytes,
// --data-cache-bytes) are most of the live heap; applyMemoryLimit keeps the heap from
// growing to five times them.
const defaultGCPercent = 400

// memoryHeadroom is what the soft memory limit of `flightd serve` allows beyond the caches'
// budgets: the queries' working memory before the collector works harder.
const memoryHeadroom = 2 << 30

// applyGCPercent sets the collector's target to percent, unless the GOGC environment
// variable is set (the operator's choice wins). A negative percent turns the collector
// off, as GOGC=off does; pair that with GOMEMLIMIT.
func applyGCPercent(percent int) {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(percent)
}

// applyMemoryLimit sets the runtime's soft memory limit to caches (the caches' budgets, in
// bytes) plus memoryHeadroom, unless the GOMEMLIMIT environment variable is set. At GC
// percent 400, a heap whose live part is a full 1 GiB data cache would otherwise grow to
// about 5 GiB before each collection; with the limit the collector runs once the heap
// nears it (a soft limit: queries that need more still get it, at more GC work).
func applyMemoryLimit(caches int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(max(caches, 0) + memoryHeadroom)
}

// cacheBudget is a cache flag's budget in bytes: 0 means def, a negative value no cache.
func cacheBudget(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
