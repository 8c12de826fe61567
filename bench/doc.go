// Package bench holds flightd's side-by-side benchmarks. See README.md for how they run and
// where results are recorded.
package bench
