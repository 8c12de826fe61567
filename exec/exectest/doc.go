// Package exectest is the operator test harness. Run replays the same input through an
// operator at batch sizes 1, 2, 3, 16 and the default, once with plain arrays and once with
// "hostile" arrays (junk values under NULL slots, non-zero array offsets), each time under a
// CheckedAllocator that must end at zero bytes, and compares the output rows with the
// expected rows, in order or as a multiset.
//
// Rows are Go values: nil is NULL; integers compare as int64 (unsigned as uint64), floats
// as float64 within a relative tolerance, strings as string, booleans as bool, dates as
// arrow.Date32, and other types as their ValueStr rendering.
package exectest
