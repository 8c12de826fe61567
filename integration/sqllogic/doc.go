// Package sqllogic runs flightd's SQL semantics corpus (testdata/<area>/*.test, the
// sqllogictest dialect of internal/slt) with DuckDB as the oracle.
//
// Every file runs against a fresh DuckDB (duckdb_oracle.py, driven over stdin/stdout by
// Oracle) and a fresh flightd. Data is described once, in DuckDB's SQL: statements that
// create or change tables (CREATE TABLE … AS, INSERT, UPDATE, DELETE, DROP) run in DuckDB,
// and each change is handed to flightd's side as a new table version — in memory (MemStore,
// a versioned catalog over catalog/memcat) or as a Lance dataset written by pylance. Every
// other statement and every query runs in flightd. An INSERT becomes an append, so each
// INSERT adds a version that "t AT (VERSION => n)" can read; the oracle answers such
// queries from its own snapshot of that version.
//
// Expected results are produced by DuckDB through `go test ./integration/sqllogic -rewrite`
// and reviewed in the diff; TestSLTDuckDB checks that the committed blocks still equal
// DuckDB's answers. Records flightd fails are listed in known_failures/<run>.txt; a run fails
// when a record fails that is not listed, or a listed one passes (-update-known rewrites
// the lists).
package sqllogic
