// Package archtest enforces flightd's layering: dependencies point down
// (flightsrv → planner/exec → catalog → lanceformat → lanceio), as tabled in
// ARCHITECTURE.md. The rules live in rules.go; the test lists every package of the module
// with `go list` and fails on any import a rule does not allow, or on a package no rule covers.
package archtest
