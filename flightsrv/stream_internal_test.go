package flightsrv

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestSendSlicedKeepsMessagesSmall checks that a batch far over the gRPC message limit is sent
// as slices under maxChunkBytes that add up to the whole batch, without leaking.
func TestSendSlicedKeepsMessagesSmall(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	const rows = 1 << 20 // 8 MiB of int64
	b := array.NewInt64Builder(mem)
	for i := range rows {
		b.Append(int64(i))
	}
	col := b.NewArray()
	b.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := array.NewRecordBatch(sc, []arrow.Array{col}, rows)
	col.Release()

	ch := make(chan flight.StreamChunk, 64)
	require.NoError(t, sendSliced(context.Background(), batch, ch))
	batch.Release()
	close(ch)

	var total int64
	var next int64
	for c := range ch {
		require.LessOrEqual(t, c.Data.NumRows()*8, int64(maxChunkBytes))
		require.Equal(t, next, c.Data.Column(0).(*array.Int64).Value(0))
		next += c.Data.NumRows()
		total += c.Data.NumRows()
		c.Data.Release()
	}
	require.Equal(t, int64(rows), total)
}

func TestSendSlicedStopsOnCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	b.Append(1)
	col := b.NewArray()
	b.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := array.NewRecordBatch(sc, []arrow.Array{col}, 1)
	col.Release()
	defer batch.Release()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := sendSliced(ctx, batch, make(chan flight.StreamChunk)) // nobody receives
	require.ErrorIs(t, err, context.Canceled)
}
