// Package bench holds flightd's side-by-side benchmarks: each one times flightd and its peer
// (pylance, DuckDB, or a synthetic Flight server) interleaved in the same run and reports
// the medians and their ratio. See README.md for how they run and RESULTS.md for figures.
//
// The benchmarks live in _test.go files (go test -bench); py/peer.py is the long-lived
// Python worker that runs and times the peers' side, tpch/gen.py generates TPC-H data, and
// queries/ holds the TPC-H query text.
package bench
