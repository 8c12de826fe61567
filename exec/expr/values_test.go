package expr_test

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec/exectest"
)

// columnValues returns the normalized values of arr.
func columnValues(arr arrow.Array) []any {
	sch := arrow.NewSchema([]arrow.Field{{Name: "r", Type: arr.DataType(), Nullable: true}}, nil)
	b := array.NewRecordBatch(sch, []arrow.Array{arr}, int64(arr.Len()))
	defer b.Release()
	rows := exectest.ToRows([]arrow.RecordBatch{b})
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out
}
