// Package kernel holds the executor's own vectorized building blocks where arrow-go's
// compute package has none: typed output buffers, row-key encoding for hashing, 128-bit
// sums, integer division and modulus with DuckDB's error semantics, float-to-integer casts,
// LIKE matching, and the string (str_*.go), math (math_*.go) and date (date_*.go) scalar
// functions, found by name through LookupScalar, plus date/time arithmetic (DateArith).
// It also has typed loops that replace arrow-go kernels on hot paths: selection of TRUE rows
// from a condition's bitmaps (SelectTrue, AndTrue) and the gather that follows (Take),
// comparisons (CompareFast), int64-range decimal arithmetic and narrowing (DecimalArith,
// NarrowDecimal), decimal to float64 casts (DecimalToFloat64) and column-at-a-time group
// key encoding (RowKeys).
//
// Kernels take arrow.Array inputs of identical length and allocate every output buffer from
// the allocator they are given; the caller owns (and must Release) what they return.
package kernel
