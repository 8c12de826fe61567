// Package functions is the one place that knows flightd's scalar and aggregate functions:
// their canonical names (the names the executor implements), their result types, and
// DuckDB's implicit casts between argument types. The binder and the Substrait consumer
// both build calls through it, so a plan rebuilt from Substrait types exactly like the
// plan the binder made.
package functions

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// IsInteger reports whether t is a signed or unsigned integer type.
func IsInteger(t arrow.DataType) bool { return isSigned(t) || isUnsigned(t) }

func isSigned(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

func isUnsigned(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

// IsFloat reports whether t is float32 or float64.
func IsFloat(t arrow.DataType) bool { return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 }

// IsNumeric reports whether t is an integer, float or decimal type.
func IsNumeric(t arrow.DataType) bool {
	return IsInteger(t) || IsFloat(t) || t.ID() == arrow.DECIMAL128 || t.ID() == arrow.DECIMAL256
}

// IsString reports whether t is a string type.
func IsString(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

func bitWidth(t arrow.DataType) int {
	if fw, ok := t.(arrow.FixedWidthDataType); ok {
		return fw.BitWidth()
	}
	return 0
}

func signedOfWidth(bits int) arrow.DataType {
	switch {
	case bits <= 8:
		return arrow.PrimitiveTypes.Int8
	case bits <= 16:
		return arrow.PrimitiveTypes.Int16
	case bits <= 32:
		return arrow.PrimitiveTypes.Int32
	}
	return arrow.PrimitiveTypes.Int64
}

func unsignedOfWidth(bits int) arrow.DataType {
	switch {
	case bits <= 8:
		return arrow.PrimitiveTypes.Uint8
	case bits <= 16:
		return arrow.PrimitiveTypes.Uint16
	case bits <= 32:
		return arrow.PrimitiveTypes.Uint32
	}
	return arrow.PrimitiveTypes.Uint64
}

// integerDigits is the number of decimal digits an integer type needs.
func integerDigits(t arrow.DataType) int32 {
	switch bitWidth(t) {
	case 8:
		return 3
	case 16:
		return 5
	case 32:
		return 10
	}
	return 19
}

// CommonType is the type two operands are cast to before a comparison or arithmetic, after
// DuckDB's implicit cast rules: integers widen (a signed and an unsigned integer meet at a
// signed type twice as wide, capped at 64 bits), integers meet floats at the float (int64
// and float32 meet at float64), decimals widen, dates meet timestamps at the timestamp.
// ok is false when the types cannot meet.
func CommonType(a, b arrow.DataType) (arrow.DataType, bool) {
	switch {
	case arrow.TypeEqual(a, b):
		return a, true
	case a.ID() == arrow.NULL:
		return b, true
	case b.ID() == arrow.NULL:
		return a, true
	case IsInteger(a) && IsInteger(b):
		return commonInteger(a, b), true
	case IsFloat(a) || IsFloat(b):
		if IsNumeric(a) && IsNumeric(b) {
			return commonFloat(a, b), true
		}
	case isDecimal(a) || isDecimal(b):
		if IsNumeric(a) && IsNumeric(b) {
			return commonDecimal(a, b), true
		}
	case IsString(a) && IsString(b):
		return arrow.BinaryTypes.String, true
	case isTemporal(a) && isTemporal(b):
		return commonTemporal(a, b)
	case a.ID() == arrow.STRUCT && b.ID() == arrow.STRUCT:
		return commonStruct(a.(*arrow.StructType), b.(*arrow.StructType)) // struct.go
	case a.ID() == arrow.LIST && b.ID() == arrow.LIST:
		return commonList(a.(*arrow.ListType), b.(*arrow.ListType)) // list_value.go
	case a.ID() == b.ID():
		return a, true
	}
	return nil, false
}

func commonInteger(a, b arrow.DataType) arrow.DataType {
	wa, wb := bitWidth(a), bitWidth(b)
	switch {
	case isSigned(a) == isSigned(b):
		if isSigned(a) {
			return signedOfWidth(max(wa, wb))
		}
		return unsignedOfWidth(max(wa, wb))
	case isUnsigned(a):
		return signedOfWidth(max(2*wa, wb))
	default:
		return signedOfWidth(max(wa, 2*wb))
	}
}

func commonFloat(a, b arrow.DataType) arrow.DataType {
	if a.ID() == arrow.FLOAT64 || b.ID() == arrow.FLOAT64 || isDecimal(a) || isDecimal(b) {
		return arrow.PrimitiveTypes.Float64
	}
	other := a
	if a.ID() == arrow.FLOAT32 {
		other = b
	}
	if other.ID() == arrow.FLOAT32 || bitWidth(other) <= 16 {
		return arrow.PrimitiveTypes.Float32
	}
	return arrow.PrimitiveTypes.Float64
}

func isDecimal(t arrow.DataType) bool { return t.ID() == arrow.DECIMAL128 }

func decimalParts(t arrow.DataType) (precision, scale int32) {
	if d, ok := t.(*arrow.Decimal128Type); ok {
		return d.Precision, d.Scale
	}
	return integerDigits(t), 0
}

func commonDecimal(a, b arrow.DataType) arrow.DataType {
	pa, sa := decimalParts(a)
	pb, sb := decimalParts(b)
	scale := max(sa, sb)
	prec := min(max(pa-sa, pb-sb)+scale, 38)
	return &arrow.Decimal128Type{Precision: prec, Scale: scale}
}

func isTemporal(t arrow.DataType) bool { return t.ID() == arrow.DATE32 || t.ID() == arrow.TIMESTAMP }

func commonTemporal(a, b arrow.DataType) (arrow.DataType, bool) {
	ta, aok := a.(*arrow.TimestampType)
	tb, bok := b.(*arrow.TimestampType)
	switch {
	case aok && bok:
		unit, tz := ta.Unit, ta.TimeZone
		if tb.Unit > unit {
			unit = tb.Unit
		}
		if tz == "" {
			tz = tb.TimeZone
		}
		return &arrow.TimestampType{Unit: unit, TimeZone: tz}, true
	case aok:
		return a, true
	case bok:
		return b, true
	}
	return nil, false
}
