package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
)

// valueKind is how an aggregate reads and compares a column's values.
type valueKind int

const (
	kindSigned   valueKind = iota // signed integers and int-backed temporals, read as int64
	kindUnsigned                  // unsigned integers, read as uint64
	kindFloat                     // float32/float64, read as float64
	kindString                    // string, large_string, binary, large_binary
	kindBool
	kindDecimal // decimal128
)

func kindOf(dt arrow.DataType) (valueKind, bool) {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.DATE64,
		arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return kindSigned, true
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return kindUnsigned, true
	case arrow.FLOAT32, arrow.FLOAT64:
		return kindFloat, true
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return kindString, true
	case arrow.BOOL:
		return kindBool, true
	case arrow.DECIMAL128:
		return kindDecimal, true
	}
	return 0, false
}

func bitWidth(dt arrow.DataType) int {
	if fw, ok := dt.(arrow.FixedWidthDataType); ok {
		return fw.BitWidth()
	}
	return 0
}

func widen[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64, S int64 | uint64](vs []T) func(int) S {
	return func(i int) S { return S(vs[i]) }
}

func signedGetter(a arrow.Array) func(int) int64 {
	switch bitWidth(a.DataType()) {
	case 8:
		return widen[int8, int64](arrow.GetValues[int8](a.Data(), 1))
	case 16:
		return widen[int16, int64](arrow.GetValues[int16](a.Data(), 1))
	case 32:
		return widen[int32, int64](arrow.GetValues[int32](a.Data(), 1))
	}
	return widen[int64, int64](arrow.GetValues[int64](a.Data(), 1))
}

func unsignedGetter(a arrow.Array) func(int) uint64 {
	switch bitWidth(a.DataType()) {
	case 8:
		return widen[uint8, uint64](arrow.GetValues[uint8](a.Data(), 1))
	case 16:
		return widen[uint16, uint64](arrow.GetValues[uint16](a.Data(), 1))
	case 32:
		return widen[uint32, uint64](arrow.GetValues[uint32](a.Data(), 1))
	}
	return widen[uint64, uint64](arrow.GetValues[uint64](a.Data(), 1))
}

func floatGetter(a arrow.Array) func(int) float64 {
	if a.DataType().ID() == arrow.FLOAT32 {
		vs := arrow.GetValues[float32](a.Data(), 1)
		return func(i int) float64 { return float64(vs[i]) }
	}
	vs := arrow.GetValues[float64](a.Data(), 1)
	return func(i int) float64 { return vs[i] }
}

// stringGetter returns the values; string values share the batch's memory, so a value
// kept beyond the batch must be cloned.
func stringGetter(a arrow.Array) func(int) string {
	switch a := a.(type) {
	case *array.String:
		return a.Value
	case *array.LargeString:
		return a.Value
	case *array.Binary:
		return func(i int) string { return string(a.Value(i)) }
	case *array.LargeBinary:
		return func(i int) string { return string(a.Value(i)) }
	}
	return nil
}

func boolGetter(a arrow.Array) func(int) bool { return a.(*array.Boolean).Value }

func decimalGetter(a arrow.Array) func(int) decimal128.Num {
	vs := arrow.GetValues[decimal128.Num](a.Data(), 1)
	return func(i int) decimal128.Num { return vs[i] }
}

// buildFixed builds an array of type dt from vals; rows with !valid[i] are NULL.
func buildFixed[T arrow.FixedWidthType, S any](mem memory.Allocator, dt arrow.DataType, vals []S, valid []bool, conv func(S) T) arrow.Array {
	out := kernel.NewFixed[T](mem, dt, len(vals))
	for i, v := range vals {
		if !valid[i] {
			out.SetNull(i)
			continue
		}
		out.Values[i] = conv(v)
	}
	return out.Finish()
}

func buildSigned(mem memory.Allocator, dt arrow.DataType, vals []int64, valid []bool) arrow.Array {
	switch bitWidth(dt) {
	case 8:
		return buildFixed(mem, dt, vals, valid, func(v int64) int8 { return int8(v) })
	case 16:
		return buildFixed(mem, dt, vals, valid, func(v int64) int16 { return int16(v) })
	case 32:
		return buildFixed(mem, dt, vals, valid, func(v int64) int32 { return int32(v) })
	}
	return buildFixed(mem, dt, vals, valid, func(v int64) int64 { return v })
}

func buildUnsigned(mem memory.Allocator, dt arrow.DataType, vals []uint64, valid []bool) arrow.Array {
	switch bitWidth(dt) {
	case 8:
		return buildFixed(mem, dt, vals, valid, func(v uint64) uint8 { return uint8(v) })
	case 16:
		return buildFixed(mem, dt, vals, valid, func(v uint64) uint16 { return uint16(v) })
	case 32:
		return buildFixed(mem, dt, vals, valid, func(v uint64) uint32 { return uint32(v) })
	}
	return buildFixed(mem, dt, vals, valid, func(v uint64) uint64 { return v })
}

func buildFloat(mem memory.Allocator, dt arrow.DataType, vals []float64, valid []bool) arrow.Array {
	if dt.ID() == arrow.FLOAT32 {
		return buildFixed(mem, dt, vals, valid, func(v float64) float32 { return float32(v) })
	}
	return buildFixed(mem, dt, vals, valid, func(v float64) float64 { return v })
}

func buildBool(mem memory.Allocator, vals []bool, valid []bool) arrow.Array {
	out := kernel.NewBools(mem, len(vals))
	for i, v := range vals {
		if !valid[i] {
			out.SetNull(i)
			continue
		}
		out.Set(i, v)
	}
	return out.Finish()
}

func buildString(mem memory.Allocator, dt arrow.DataType, vals []string, valid []bool) (arrow.Array, error) {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i, v := range vals {
		if !valid[i] {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.StringBuilder:
			b.Append(v)
		case *array.LargeStringBuilder:
			b.Append(v)
		case *array.BinaryBuilder:
			b.AppendString(v)
		default:
			return nil, dberr.New(dberr.Internal, "aggregate: cannot build %s from strings", dt)
		}
	}
	return b.NewArray(), nil
}
