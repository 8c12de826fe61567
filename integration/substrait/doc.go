// Package substrait tests flightd's Substrait consumer end to end against plans other
// producers write: DataFusion's (the Python datafusion package's Substrait producer) for the
// 22 TPC-H queries, run in-process and over Flight SQL (CommandStatementSubstraitPlan), and
// compared with flightd's SQL path and with DuckDB.
package substrait
