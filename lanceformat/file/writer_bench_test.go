package file_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/schema"
)

// BenchmarkWriter writes 1M rows of {id int64, name utf8, tags list<int32>} per iteration.
func BenchmarkWriter(b *testing.B) {
	asc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, asc)
	defer rb.Release()
	const rows = 1 << 20
	for i := range rows {
		rb.Field(0).(*array.Int64Builder).Append(int64(i))
		rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("user-%d", i%5000))
		lb := rb.Field(2).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{int32(i % 7), int32(i % 11)}, nil)
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	sc, err := schema.FromArrow(asc, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range writerVersions {
		b.Run(v.String(), func(b *testing.B) {
			ctx := context.Background()
			store := osStore{b.TempDir()}
			for range b.N {
				w, err := file.NewWriter(ctx, store, "f.lance", sc, v)
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Write(ctx, rec); err != nil {
					b.Fatal(err)
				}
				info, err := w.Close(ctx)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(info.Size)/rows, "bytes/row")
			}
		})
	}
}
