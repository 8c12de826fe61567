package file_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
)

// readCountingStore counts the range reads and bytes that pass through it.
type readCountingStore struct {
	lanceio.ObjectStore
	reads, bytes atomic.Int64
}

func (s *readCountingStore) ReadRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	b, err := s.ObjectStore.ReadRange(ctx, p, off, n)
	s.reads.Add(1)
	s.bytes.Add(int64(len(b)))
	return b, err
}

var takeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "v", Type: arrow.FixedSizeListOf(8, arrow.PrimitiveTypes.Float32), Nullable: true},
	{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
}, nil)

// takeRecord builds n rows of takeSchema whose values are functions of the row number.
func takeRecord(mem memory.Allocator, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, takeSchema)
	defer b.Release()
	id := b.Field(0).(*array.Int64Builder)
	s := b.Field(1).(*array.StringBuilder)
	v := b.Field(2).(*array.FixedSizeListBuilder)
	vv := v.ValueBuilder().(*array.Float32Builder)
	l := b.Field(3).(*array.ListBuilder)
	lv := l.ValueBuilder().(*array.Int32Builder)
	for i := range n {
		id.Append(int64(i) * 3)
		if i%7 == 0 {
			s.AppendNull()
		} else {
			s.Append(fmt.Sprintf("row-%d-%s", i, string(rune('a'+i%26))))
		}
		v.Append(true)
		for k := range 8 {
			vv.Append(float32(i) + float32(k)/8)
		}
		if i%5 == 0 {
			l.AppendNull()
		} else {
			l.Append(true)
			for k := range i % 4 {
				lv.Append(int32(i + k))
			}
		}
	}
	return b.NewRecordBatch()
}

// TestTakeCoalescedReads checks that Take returns the same values as ReadRange at the
// taken rows while reading through few, coalesced requests, and that the read counter
// sees exactly the bytes the store served.
func TestTakeCoalescedReads(t *testing.T) {
	const n = 5000
	var rows []uint64
	for r := uint64(0); r < n; r += 17 {
		rows = append(rows, r)
		if r%3 == 0 && r+1 < n {
			rows = append(rows, r+1) // some runs of two rows
		}
	}
	if rows[len(rows)-1] != n-1 {
		rows = append(rows, n-1)
	}
	for _, v := range []file.Version{file.V2_0, file.V2_1, file.V2_2} {
		t.Run(v.String(), func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			store := writeTakeFile(t, v, n, 64<<10, mem)
			r, err := file.Open(ctx, store, "t.lance")
			require.NoError(t, err)
			ids := topIDs(r)
			full, err := r.ReadRange(ctx, ids, 0, n, mem)
			require.NoError(t, err)
			defer releaseAll(full)

			var counted atomic.Int64
			reads0, bytes0 := store.reads.Load(), store.bytes.Load()
			got, err := r.Take(file.WithReadCounter(ctx, &counted), ids, rows, mem)
			require.NoError(t, err)
			defer releaseAll(got)
			reads, bytes := store.reads.Load()-reads0, store.bytes.Load()-bytes0
			t.Logf("take of %d rows: %d reads, %d bytes", len(rows), reads, bytes)
			require.Equal(t, bytes, counted.Load())
			require.Positive(t, bytes)
			if v != file.V2_0 {
				// Unplanned, a Take reads about twice per row per mini-block column.
				require.Less(t, reads, int64(len(rows))/4, "reads not coalesced")
			}
			for c := range ids {
				require.Equal(t, len(rows), got[c].Len())
				for k, row := range rows {
					want := array.NewSlice(full[c], int64(row), int64(row)+1)
					have := array.NewSlice(got[c], int64(k), int64(k)+1)
					eq := array.Equal(want, have)
					want.Release()
					have.Release()
					require.True(t, eq, "column %d row %d", c, row)
				}
			}
		})
	}
}

// writeTakeFile writes n rows of takeRecord as "t.lance", format v, pages of about
// pageBytes, to a new directory and returns its counting store.
func writeTakeFile(t *testing.T, v file.Version, n int, pageBytes int64, mem memory.Allocator) *readCountingStore {
	t.Helper()
	ctx := context.Background()
	sc, err := schema.FromArrow(takeSchema, 0)
	require.NoError(t, err)
	store := &readCountingStore{ObjectStore: osStore{t.TempDir()}}
	w, err := file.NewWriter(ctx, store, "t.lance", sc, v, file.WithAllocator(mem), file.WithPageBytes(pageBytes))
	require.NoError(t, err)
	rec := takeRecord(mem, n)
	defer rec.Release()
	require.NoError(t, w.Write(ctx, rec))
	_, err = w.Close(ctx)
	require.NoError(t, err)
	return store
}

// topIDs returns the ids of the file's top-level fields.
func topIDs(r *file.Reader) []int32 {
	var ids []int32
	for _, f := range r.Schema().Fields {
		ids = append(ids, f.ID)
	}
	return ids
}
