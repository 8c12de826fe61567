package flightsrv

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
)

// xdbcType is one row of GetXdbcTypeInfo: a SQL type flightd supports, described with the
// java.sql.Types code JDBC and ODBC tools expect.
type xdbcType struct {
	name       string
	code       int32 // java.sql.Types
	size       int32 // column size (precision for numbers, chars for strings); 0 = unknown
	quote      bool  // literals are written in single quotes
	params     []string
	caseSens   bool
	radix      int32 // 10 for exact numbers, 2 for floats, 0 otherwise
	minS, maxS int32 // scale range for DECIMAL
}

// xdbcTypes lists flightd's SQL types (DuckDB's names) ordered by code, as JDBC's getTypeInfo
// requires.
var xdbcTypes = []xdbcType{
	{name: "TINYINT", code: -6, size: 3, radix: 10},
	{name: "BIGINT", code: -5, size: 19, radix: 10},
	{name: "BLOB", code: -3, quote: true},
	{name: "DECIMAL", code: 3, size: 38, params: []string{"precision", "scale"}, radix: 10, maxS: 38},
	{name: "INTEGER", code: 4, size: 10, radix: 10},
	{name: "SMALLINT", code: 5, size: 5, radix: 10},
	{name: "FLOAT", code: 7, size: 24, radix: 2},
	{name: "DOUBLE", code: 8, size: 53, radix: 2},
	{name: "VARCHAR", code: 12, quote: true, caseSens: true},
	{name: "BOOLEAN", code: 16, size: 1},
	{name: "DATE", code: 91, quote: true},
	{name: "TIME", code: 92, quote: true},
	{name: "TIMESTAMP", code: 93, quote: true},
}

// GetFlightInfoXdbcTypeInfo describes the type list.
func (s *Server) GetFlightInfoXdbcTypeInfo(_ context.Context, _ flightsql.GetXdbcTypeInfo, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(schema_ref.XdbcTypeInfo, desc), nil
}

// DoGetXdbcTypeInfo lists the types, or only the one asked for.
func (s *Server) DoGetXdbcTypeInfo(ctx context.Context, cmd flightsql.GetXdbcTypeInfo) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	want := cmd.GetDataType()
	return s.oneBatch(ctx, schema_ref.XdbcTypeInfo, func(b *array.RecordBuilder) error {
		for _, t := range xdbcTypes {
			if want == nil || *want == t.code {
				appendXdbcType(b, t)
			}
		}
		return nil
	})
}

func appendXdbcType(b *array.RecordBuilder, t xdbcType) {
	str := func(i int, v string, valid bool) {
		if valid {
			b.Field(i).(*array.StringBuilder).Append(v)
		} else {
			b.Field(i).AppendNull()
		}
	}
	i32 := func(i int, v int32, valid bool) {
		if valid {
			b.Field(i).(*array.Int32Builder).Append(v)
		} else {
			b.Field(i).AppendNull()
		}
	}
	boolean := func(i int, v bool) { b.Field(i).(*array.BooleanBuilder).Append(v) }

	str(0, t.name, true)
	i32(1, t.code, true)
	i32(2, t.size, t.size > 0)
	str(3, "'", t.quote)
	str(4, "'", t.quote)
	if lb := b.Field(5).(*array.ListBuilder); t.params != nil {
		lb.Append(true)
		for _, p := range t.params {
			lb.ValueBuilder().(*array.StringBuilder).Append(p)
		}
	} else {
		lb.AppendNull()
	}
	i32(6, 1, true) // nullable
	boolean(7, t.caseSens)
	i32(8, 3, true) // searchable
	boolean(9, false)
	boolean(10, false)
	boolean(11, false)
	str(12, t.name, true)
	i32(13, t.minS, t.code == 3)
	i32(14, t.maxS, t.code == 3)
	i32(15, t.code, true)
	i32(16, 0, false)
	i32(17, t.radix, t.radix > 0)
	i32(18, 0, false)
}
