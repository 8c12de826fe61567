// Package itest holds what flightd's end-to-end test packages share: an in-process server on
// 127.0.0.1:0 under a checked allocator, a Flight SQL client for it, the pinned Python peers
// (tables written by pylance, expected results computed by DuckDB over the same rows), query
// results reduced to comparable text, and a throwaway certificate authority for TLS tests.
package itest
