package lancecat

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/blobstore"
)

// bufferAddrs adds the first byte's address of every buffer of d (and its children) to out.
func bufferAddrs(d arrow.ArrayData, out map[*byte][]byte) {
	for _, b := range d.Buffers() {
		if b != nil && b.Cap() > 0 {
			out[&b.Buf()[:1][0]] = b.Buf()
		}
	}
	for _, c := range d.Children() {
		bufferAddrs(c, out)
	}
}

// TestLatePreColumnsNeverEscape scans four batches whose prefilter keeps all rows, 1%, 60%
// (decoded in full), then all: the prefilter columns are decoded from the reader's recycler
// except after an all-kept batch, no output batch holds a recycled buffer, and the rows are
// the ones kept.
func TestLatePreColumnsNeverEscape(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	store, err := blobstore.Open(ctx, filepath.ToSlash(t.TempDir()))
	require.NoError(t, err)
	c := New(store)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	const n = 4 * batchRows
	bld := array.NewRecordBuilder(mem, sc)
	for k := range int64(n) {
		bld.Field(0).(*array.Int64Builder).Append(k)
		if k%5 == 0 {
			bld.Field(1).AppendNull()
		} else {
			bld.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row %d", k))
		}
		bld.Field(2).(*array.Int32Builder).Append(int32(k * 3))
	}
	rec := bld.NewRecordBatch()
	bld.Release()
	_, err = c.CreateTable(ctx, "t", sc, []arrow.RecordBatch{rec}, catalog.CreateNew)
	rec.Release()
	require.NoError(t, err)
	tbl, err := c.LoadTable(ctx, "t", catalog.VersionRef{})
	require.NoError(t, err)

	keep := func(k int64) bool {
		switch k / batchRows {
		case 0, 3:
			return true
		case 1:
			return k%100 == 0
		default:
			return k%10 < 6
		}
	}
	req := catalog.ScanRequest{Columns: []int{0, 1, 2}, Limit: -1, Prefilter: &catalog.Prefilter{
		Columns: []int{0, 1},
		MaxKept: 0.5,
		Select: func(_ context.Context, b arrow.RecordBatch) ([]int32, error) {
			var sel []int32
			for i, k := range b.Column(0).(*array.Int64).Int64Values() {
				if keep(k) {
					sel = append(sel, int32(i))
				}
			}
			return sel, nil
		},
		Take: func(_ context.Context, b arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error) {
			b.Retain()
			return takeCopy(t, mem, b, sel), nil
		},
	}}
	ms, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	rd, err := tbl.Scan(ctx, req, ms[0], mem)
	require.NoError(t, err)
	defer rd.Close()
	sr := rd.(*scanReader)
	wantDense := []bool{true, false, false, true}
	var outs []arrow.RecordBatch
	defer func() {
		for _, b := range outs {
			b.Release()
		}
	}()
	for i := range 4 {
		preMem := sr.preMem()
		require.Equal(t, i != 1, preMem != sr.mem, "batch %d: prefilter columns from the recycler", i)
		b, err := rd.Next(ctx)
		require.NoError(t, err)
		require.NotNil(t, b)
		outs = append(outs, b)
		require.Equal(t, wantDense[i], sr.late.dense, "batch %d", i)
		addrs := map[*byte][]byte{}
		for _, col := range b.Columns() {
			bufferAddrs(col.Data(), addrs)
		}
		recycled := 0
		for _, buf := range addrs {
			if sr.late.tmp.Owns(buf) {
				recycled++
			}
		}
		require.Zero(t, recycled, "batch %d holds recycled buffers", i)
		if i == 1 {
			require.Positive(t, sr.late.tmp.Held(), "the selective batch gave its buffers back")
		}
		ks, ss, vs := b.Column(0).(*array.Int64), b.Column(1).(*array.String), b.Column(2).(*array.Int32)
		var want int
		for k := int64(i * batchRows); k < int64((i+1)*batchRows); k++ {
			if keep(k) {
				want++
			}
		}
		require.Equal(t, want, ks.Len(), "batch %d", i)
		for r := range ks.Len() {
			k := ks.Value(r)
			require.True(t, keep(k))
			require.Equal(t, k%5 == 0, ss.IsNull(r))
			if !ss.IsNull(r) {
				require.Equal(t, fmt.Sprintf("row %d", k), ss.Value(r))
			}
			require.Equal(t, int32(k*3), vs.Value(r))
		}
	}
	b, err := rd.Next(ctx)
	require.NoError(t, err)
	require.Nil(t, b)
	require.NoError(t, rd.Close())
	require.Zero(t, sr.late.tmp.Held(), "Close gave the kept buffers back")
}

// takeCopy returns copies of b's rows at sel (int64, string and int32 columns) and
// releases b.
func takeCopy(t *testing.T, mem memory.Allocator, b arrow.RecordBatch, sel []int32) arrow.RecordBatch {
	defer b.Release()
	bld := array.NewRecordBuilder(mem, b.Schema())
	defer bld.Release()
	for c, col := range b.Columns() {
		for _, s := range sel {
			switch a := col.(type) {
			case *array.Int64:
				bld.Field(c).(*array.Int64Builder).Append(a.Value(int(s)))
			case *array.Int32:
				bld.Field(c).(*array.Int32Builder).Append(a.Value(int(s)))
			case *array.String:
				if a.IsNull(int(s)) {
					bld.Field(c).AppendNull()
				} else {
					bld.Field(c).(*array.StringBuilder).Append(a.Value(int(s)))
				}
			default:
				t.Fatalf("takeCopy: type %s", col.DataType())
			}
		}
	}
	return bld.NewRecordBatch()
}
