// Package slt reads and runs sqllogictest files in the dialect flightd's SQL tests use: the
// core that DuckDB and DataFusion share, with DuckDB's headers and directives.
//
//	# name: test/sql/select/where.test     header comments (name, description, group)
//	# group: [select]
//
//	require lance                         skip the rest of the file without this feature
//
//	statement ok                          the statement must succeed
//	CREATE TABLE t AS SELECT 1 AS a
//
//	statement error no such table         the statement must fail; the rest of the line is
//	SELECT * FROM missing                 a regular expression the error must match
//
//	skipif config batch_size_1            conditions on the next record: an engine name
//	onlyif flightd                        ("flightd", "duckdb") or "config <name>"
//	query IT rowsort label                types (I integer, R real, T text, B boolean,
//	SELECT a, b FROM t                    D date/time), sort mode (nosort, rowsort,
//	----                                  valuesort) and an optional label: queries with
//	1	x                                  the same label must have the same result
//
//	halt                                  stop reading the file
//	mode skip / mode unskip               switch the following records off and on
//
// Values are rendered by Render (NULL, (empty), true/false, floats rounded to 12
// significant digits), one row per line, columns separated by a tab.
//
// A Runner runs a File against an Engine and reports every record's outcome. Rewrite
// regenerates the expected blocks of a file from an engine (the DuckDB oracle), which is how
// expected results are produced: never typed by hand, always reviewed in the diff.
// KnownFailures is a checked-in list of records an engine is known to fail; Check compares
// a run with it so the list can only shrink.
package slt
