package schema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// ErrBadLogicalType classifies logical type strings that do not parse.
var ErrBadLogicalType = errors.New("bad lance logical type")

// ErrNotSupported classifies valid types this package cannot represent yet.
var ErrNotSupported = errors.New("not supported yet")

// Logical type names of the nested kinds. Their children come from the flat field list.
const (
	logicalStruct         = "struct"
	logicalList           = "list"
	logicalListStruct     = "list.struct"
	logicalLargeList      = "large_list"
	logicalLargeListStuct = "large_list.struct"
	logicalMap            = "map"
)

var simpleLogical = map[string]arrow.DataType{
	"null":         arrow.Null,
	"bool":         arrow.FixedWidthTypes.Boolean,
	"int8":         arrow.PrimitiveTypes.Int8,
	"int16":        arrow.PrimitiveTypes.Int16,
	"int32":        arrow.PrimitiveTypes.Int32,
	"int64":        arrow.PrimitiveTypes.Int64,
	"uint8":        arrow.PrimitiveTypes.Uint8,
	"uint16":       arrow.PrimitiveTypes.Uint16,
	"uint32":       arrow.PrimitiveTypes.Uint32,
	"uint64":       arrow.PrimitiveTypes.Uint64,
	"halffloat":    arrow.FixedWidthTypes.Float16,
	"float":        arrow.PrimitiveTypes.Float32,
	"double":       arrow.PrimitiveTypes.Float64,
	"string":       arrow.BinaryTypes.String,
	"large_string": arrow.BinaryTypes.LargeString,
	"binary":       arrow.BinaryTypes.Binary,
	"large_binary": arrow.BinaryTypes.LargeBinary,
	"date32:day":   arrow.FixedWidthTypes.Date32,
	"date64:ms":    arrow.FixedWidthTypes.Date64,
	"json":         arrow.BinaryTypes.LargeBinary,
}

var timeUnits = map[string]arrow.TimeUnit{
	"s": arrow.Second, "ms": arrow.Millisecond, "us": arrow.Microsecond, "ns": arrow.Nanosecond,
}

// ParseLogicalType turns a leaf logical type string (§4.2 of the format spec) into an Arrow
// type. Nested kinds ("struct", "list", "large_list", ...) are not leaves; FromProto builds
// them from the field tree.
func ParseLogicalType(s string) (arrow.DataType, error) {
	if t, ok := simpleLogical[s]; ok {
		return t, nil
	}
	parts := strings.Split(s, ":")
	switch parts[0] {
	case "decimal":
		return parseDecimal(s, parts)
	case "time32", "time64", "duration":
		return parseTimeLike(s, parts)
	case "timestamp":
		return parseTimestamp(s, parts)
	case "fixed_size_binary":
		if len(parts) != 2 {
			return nil, fmt.Errorf("%w: %q", ErrBadLogicalType, s)
		}
		n, err := parseSize(s, parts[1])
		if err != nil {
			return nil, err
		}
		return &arrow.FixedSizeBinaryType{ByteWidth: n}, nil
	case "fixed_size_list":
		return parseFixedSizeList(s, parts)
	case "dict":
		return parseDictionary(s, parts)
	}
	return nil, fmt.Errorf("%w: %q", ErrBadLogicalType, s)
}

func parseSize(s, p string) (int, error) {
	n, err := strconv.Atoi(p)
	if err != nil || n <= 0 || n > 1<<30 {
		return 0, fmt.Errorf("%w: %q: bad size %q", ErrBadLogicalType, s, p)
	}
	return n, nil
}

func parseDecimal(s string, parts []string) (arrow.DataType, error) {
	if len(parts) != 4 {
		return nil, fmt.Errorf("%w: %q", ErrBadLogicalType, s)
	}
	p, err1 := strconv.Atoi(parts[2])
	sc, err2 := strconv.Atoi(parts[3])
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%w: %q: bad precision or scale", ErrBadLogicalType, s)
	}
	switch parts[1] {
	case "128":
		if p < 1 || p > 38 || sc > p {
			return nil, fmt.Errorf("%w: %q: precision out of range", ErrBadLogicalType, s)
		}
		return &arrow.Decimal128Type{Precision: int32(p), Scale: int32(sc)}, nil
	case "256":
		if p < 1 || p > 76 || sc > p {
			return nil, fmt.Errorf("%w: %q: precision out of range", ErrBadLogicalType, s)
		}
		return &arrow.Decimal256Type{Precision: int32(p), Scale: int32(sc)}, nil
	}
	return nil, fmt.Errorf("%w: %q: decimal width must be 128 or 256", ErrBadLogicalType, s)
}

func parseTimeLike(s string, parts []string) (arrow.DataType, error) {
	if len(parts) != 2 {
		return nil, fmt.Errorf("%w: %q", ErrBadLogicalType, s)
	}
	u, ok := timeUnits[parts[1]]
	if !ok {
		return nil, fmt.Errorf("%w: %q: bad time unit", ErrBadLogicalType, s)
	}
	switch {
	case parts[0] == "duration":
		return &arrow.DurationType{Unit: u}, nil
	case parts[0] == "time32" && (u == arrow.Second || u == arrow.Millisecond):
		return &arrow.Time32Type{Unit: u}, nil
	case parts[0] == "time64" && (u == arrow.Microsecond || u == arrow.Nanosecond):
		return &arrow.Time64Type{Unit: u}, nil
	}
	return nil, fmt.Errorf("%w: %q: unit does not fit the type", ErrBadLogicalType, s)
}

func parseTimestamp(s string, parts []string) (arrow.DataType, error) {
	if len(parts) < 2 {
		return nil, fmt.Errorf("%w: %q", ErrBadLogicalType, s)
	}
	u, ok := timeUnits[parts[1]]
	if !ok {
		return nil, fmt.Errorf("%w: %q: bad time unit", ErrBadLogicalType, s)
	}
	tz := ""
	if len(parts) > 2 {
		// A zone such as "+05:30" contains ':' itself, so re-join the rest.
		tz = strings.Join(parts[2:], ":")
		if tz == "-" {
			tz = ""
		}
	}
	return &arrow.TimestampType{Unit: u, TimeZone: tz}, nil
}

func parseFixedSizeList(s string, parts []string) (arrow.DataType, error) {
	if len(parts) < 3 {
		return nil, fmt.Errorf("%w: %q", ErrBadLogicalType, s)
	}
	n, err := parseSize(s, parts[len(parts)-1])
	if err != nil {
		return nil, err
	}
	itemStr := strings.Join(parts[1:len(parts)-1], ":")
	var item arrow.DataType
	if itemStr == "lance.bfloat16" {
		item = &arrow.FixedSizeBinaryType{ByteWidth: 2}
	} else {
		item, err = ParseLogicalType(itemStr)
		if err != nil {
			return nil, fmt.Errorf("fixed_size_list item of %q: %w", s, err)
		}
	}
	return arrow.FixedSizeListOfField(int32(n), arrow.Field{Name: "item", Type: item, Nullable: true}), nil
}

// FormatLogicalType renders an Arrow type as the logical type string Lance writers emit.
// Nested types render only their own kind ("struct", "list", "list.struct", ...).
func FormatLogicalType(t arrow.DataType) (string, error) {
	for name, st := range simpleLogical {
		if name != "json" && arrow.TypeEqual(st, t) {
			return name, nil
		}
	}
	switch t := t.(type) {
	case *arrow.Decimal128Type:
		return fmt.Sprintf("decimal:128:%d:%d", t.Precision, t.Scale), nil
	case *arrow.Decimal256Type:
		return fmt.Sprintf("decimal:256:%d:%d", t.Precision, t.Scale), nil
	case *arrow.Time32Type:
		return "time32:" + unitName(t.Unit), nil
	case *arrow.Time64Type:
		return "time64:" + unitName(t.Unit), nil
	case *arrow.DurationType:
		return "duration:" + unitName(t.Unit), nil
	case *arrow.TimestampType:
		tz := t.TimeZone
		if tz == "" {
			tz = "-"
		}
		return "timestamp:" + unitName(t.Unit) + ":" + tz, nil
	case *arrow.FixedSizeBinaryType:
		return fmt.Sprintf("fixed_size_binary:%d", t.ByteWidth), nil
	case *arrow.StructType:
		return logicalStruct, nil
	case *arrow.ListType:
		if t.Elem().ID() == arrow.STRUCT {
			return logicalListStruct, nil
		}
		return logicalList, nil
	case *arrow.LargeListType:
		if t.Elem().ID() == arrow.STRUCT {
			return logicalLargeListStuct, nil
		}
		return logicalLargeList, nil
	case *arrow.MapType:
		if t.KeysSorted {
			return "", fmt.Errorf("%w: map with sorted keys", ErrNotSupported)
		}
		return logicalMap, nil
	case *arrow.DictionaryType:
		val, err1 := FormatLogicalType(t.ValueType)
		key, err2 := FormatLogicalType(t.IndexType)
		if err1 != nil || err2 != nil {
			return "", fmt.Errorf("%w: dictionary type %s", ErrNotSupported, t)
		}
		return fmt.Sprintf("dict:%s:%s:%t", val, key, t.Ordered), nil
	case *arrow.FixedSizeListType:
		item, err := FormatLogicalType(t.Elem())
		if err != nil {
			return "", fmt.Errorf("fixed_size_list item: %w", err)
		}
		return fmt.Sprintf("fixed_size_list:%s:%d", item, t.Len()), nil
	}
	return "", fmt.Errorf("%w: logical type of %s", ErrNotSupported, t)
}

// parseDictionary parses "dict:{value type}:{key type}:{ordered}".
func parseDictionary(s string, parts []string) (arrow.DataType, error) {
	if len(parts) < 4 || (parts[len(parts)-1] != "false" && parts[len(parts)-1] != "true") {
		return nil, fmt.Errorf("%w: %q", ErrBadLogicalType, s)
	}
	key, err := ParseLogicalType(parts[len(parts)-2])
	if err != nil || !arrow.IsInteger(key.ID()) {
		return nil, fmt.Errorf("%w: %q: bad dictionary key type", ErrBadLogicalType, s)
	}
	val, err := ParseLogicalType(strings.Join(parts[1:len(parts)-2], ":"))
	if err != nil {
		return nil, fmt.Errorf("dictionary values of %q: %w", s, err)
	}
	return &arrow.DictionaryType{IndexType: key, ValueType: val, Ordered: parts[len(parts)-1] == "true"}, nil
}

func unitName(u arrow.TimeUnit) string {
	return [...]string{"s", "ms", "us", "ns"}[u&3]
}
