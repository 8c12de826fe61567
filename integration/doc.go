// Package integration holds flightd's end-to-end tests: a real server on 127.0.0.1:0, real
// clients (arrow-go's Flight SQL client here; pyarrow.flight and ADBC in integration/python),
// and real peers (tables written by pylance, expected results computed by DuckDB over the
// same rows).
//
// The Python peers come from the pinned virtualenv that `make test` builds (.venv); the
// tests find its interpreter through $FLIGHTD_PYTHON or <repo>/.venv/bin/python.
package integration
