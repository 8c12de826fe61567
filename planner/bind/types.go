package bind

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
)

var namedTypes = map[string]arrow.DataType{
	"BOOLEAN": arrow.FixedWidthTypes.Boolean, "BOOL": arrow.FixedWidthTypes.Boolean,
	"LOGICAL": arrow.FixedWidthTypes.Boolean,
	"TINYINT": arrow.PrimitiveTypes.Int8, "INT1": arrow.PrimitiveTypes.Int8,
	"SMALLINT": arrow.PrimitiveTypes.Int16, "INT2": arrow.PrimitiveTypes.Int16,
	"SHORT": arrow.PrimitiveTypes.Int16, "INTEGER": arrow.PrimitiveTypes.Int32,
	"INT": arrow.PrimitiveTypes.Int32, "INT4": arrow.PrimitiveTypes.Int32,
	"SIGNED": arrow.PrimitiveTypes.Int32, "BIGINT": arrow.PrimitiveTypes.Int64,
	"INT8": arrow.PrimitiveTypes.Int64, "LONG": arrow.PrimitiveTypes.Int64,
	"UTINYINT": arrow.PrimitiveTypes.Uint8, "USMALLINT": arrow.PrimitiveTypes.Uint16,
	"UINTEGER": arrow.PrimitiveTypes.Uint32, "UBIGINT": arrow.PrimitiveTypes.Uint64,
	"REAL": arrow.PrimitiveTypes.Float32, "FLOAT4": arrow.PrimitiveTypes.Float32,
	"FLOAT": arrow.PrimitiveTypes.Float32, "DOUBLE": arrow.PrimitiveTypes.Float64,
	"FLOAT8":  arrow.PrimitiveTypes.Float64,
	"VARCHAR": arrow.BinaryTypes.String, "TEXT": arrow.BinaryTypes.String,
	"STRING": arrow.BinaryTypes.String, "CHAR": arrow.BinaryTypes.String,
	"BPCHAR": arrow.BinaryTypes.String,
	"BLOB":   arrow.BinaryTypes.Binary, "BYTEA": arrow.BinaryTypes.Binary,
	"BINARY": arrow.BinaryTypes.Binary, "VARBINARY": arrow.BinaryTypes.Binary,
	"DATE": arrow.FixedWidthTypes.Date32, "TIMESTAMP": timestampType,
	"DATETIME":    timestampType,
	"TIMESTAMPTZ": &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
}

// typeFromName maps a SQL type name to its Arrow type, as DuckDB names them.
func typeFromName(tn ast.TypeName) (arrow.DataType, error) {
	if len(tn.Dims) > 0 {
		return arrayTypeFromName(tn)
	}
	if tn.Fields != nil {
		return structTypeFromName(tn) // struct_expr.go
	}
	if tn.Name == "DECIMAL" || tn.Name == "NUMERIC" {
		p, s := int32(18), int32(3)
		switch len(tn.Args) {
		case 0:
		case 1:
			p, s = int32(tn.Args[0]), 0
		case 2:
			p, s = int32(tn.Args[0]), int32(tn.Args[1])
		default:
			return nil, dberr.New(dberr.Parser, "DECIMAL takes at most two arguments")
		}
		if p < 1 || p > 38 || s < 0 || s > p {
			return nil, dberr.New(dberr.Parser, "invalid DECIMAL(%d,%d): width must be between 1 and 38 and scale between 0 and width", p, s)
		}
		return &arrow.Decimal128Type{Precision: p, Scale: s}, nil
	}
	t, ok := namedTypes[tn.Name]
	if !ok {
		return nil, dberr.NotSupported("type " + tn.String())
	}
	if len(tn.Args) > 0 && tn.Name != "VARCHAR" && tn.Name != "CHAR" {
		return nil, dberr.New(dberr.Parser, "type %s does not take arguments", tn.Name)
	}
	return t, nil
}

// timestampType is DuckDB's TIMESTAMP: microseconds, no time zone.
var timestampType = &arrow.TimestampType{Unit: arrow.Microsecond}
