// Package goclients runs flightd end to end through the Go clients people use: the ADBC
// Flight SQL driver (github.com/apache/arrow-adbc/go/adbc/driver/flightsql), its database/sql
// adapter (sqldriver), and arrow-go's Flight SQL client. Each test starts an in-process server
// over tables written by pylance and compares results with DuckDB over the same rows; the
// cancellation tests check that a cancelled query returns promptly on every client and that
// the server keeps no goroutine or Arrow memory behind.
package goclients
