// Package tpch checks that flightd answers the 22 TPC-H queries (bench/queries) exactly as
// DuckDB does over the same rows: tpchgen-cli generates the data, pylance writes it as Lance
// tables, DuckDB answers each query over pylance's reading of them, and flightd runs each
// query in-process (flightsrv.Server.Execute). The always-on test uses scale factor 0.01;
// FLIGHTD_TPCH_SF=0.1 (or any other scale factor) runs the same check at that size.
package tpch
