package lancecat_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
)

// lateSchema has a key k (0..n-1, the prefilter's column with i32) and one column of each
// kind late materialization reads.
var lateSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
	{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "word", Type: arrow.BinaryTypes.String},
	{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
}, nil)

// lateBatch makes rows k = first .. first+n-1 of lateSchema.
func lateBatch(rng *rand.Rand, mem memory.Allocator, first, n int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, lateSchema)
	defer b.Release()
	words := []string{"MAIL", "SHIP", "AIR", "TRUCK", "RAIL", "FOB", "REG AIR"}
	null := func() bool { return rng.IntN(10) == 0 }
	for k := first; k < first+n; k++ {
		b.Field(0).(*array.Int64Builder).Append(k)
		for c := 1; c < len(lateSchema.Fields()); c++ {
			fb := b.Field(c)
			if lateSchema.Field(c).Nullable && null() {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.Int32Builder:
				fb.Append(rng.Int32N(1000))
			case *array.Float64Builder:
				fb.Append(rng.Float64() * 1e4)
			case *array.Decimal128Builder:
				fb.Append(decimal128.FromI64(rng.Int64N(1e8)))
			case *array.Date32Builder:
				fb.Append(arrow.Date32(8000 + rng.IntN(3000)))
			case *array.StringBuilder:
				if c == 6 {
					fb.Append(words[rng.IntN(len(words))])
				} else {
					fb.Append(fmt.Sprintf("comment %d about %x", k, rng.Uint64()))
				}
			case *array.ListBuilder:
				fb.Append(true)
				for range rng.IntN(4) {
					fb.ValueBuilder().(*array.Int32Builder).Append(rng.Int32N(50))
				}
			case *array.StructBuilder:
				fb.Append(true)
				fb.FieldBuilder(0).(*array.Int32Builder).Append(rng.Int32N(7))
				fb.FieldBuilder(1).(*array.StringBuilder).Append(words[rng.IntN(len(words))])
			}
		}
	}
	return b.NewRecordBatch()
}

// TestLateMaterializationMatchesFilter scans random tables (three fragments, 10% of rows
// deleted, row id and address columns) with a prefilter and compares the rows with a scan
// without one whose batches are filtered the same way: for each selectivity (0%, 1%, 50%,
// 100%), threshold (always, never decode in full) and read size (ranges of 1, 7
// rows, whole morsels).
func TestLateMaterializationMatchesFilter(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c := openCatalog(t, dir)
	rng := rand.New(rand.NewPCG(7, 11))
	sizes := []int64{16500, 600, 300} // the first fragment is two batches
	var first int64
	for i, n := range sizes {
		b := lateBatch(rng, mem, first, n)
		var err error
		if i == 0 {
			_, err = c.CreateTable(ctx, "late", lateSchema, []arrow.RecordBatch{b}, catalog.CreateNew)
		} else {
			_, err = c.Append(ctx, "late", []arrow.RecordBatch{b})
		}
		b.Release()
		require.NoError(t, err)
		first += n
	}
	tbl, err := c.LoadTable(ctx, "late", catalog.VersionRef{})
	require.NoError(t, err)
	all := scanRanges(ctx, t, mem, tbl, catalog.ScanRequest{Columns: []int{0}, RowAddr: true, Limit: -1}, 0, nil)
	var dead []uint64
	addr := all.Column(1).(*array.Uint64)
	for i := range addr.Len() {
		if rng.IntN(10) == 0 {
			dead = append(dead, addr.Value(i))
		}
	}
	require.Equal(t, first, all.NumRows())
	all.Release()
	_, err = c.DeleteRows(ctx, "late", tbl.Version(), dead)
	require.NoError(t, err)
	tbl, err = c.LoadTable(ctx, "late", catalog.VersionRef{})
	require.NoError(t, err)

	cols := []int{3, 0, 1, 2, 4, 5, 6, 7, 8} // the prefilter's columns are output 1 (k) and 2 (i32)
	req := catalog.ScanRequest{Columns: cols, RowID: true, RowAddr: true, Limit: -1}
	for _, pct := range []int64{0, 1, 50, 100} {
		keep := func(k int64, i32 arrow.Array, i int) bool {
			return k%100 < pct && (pct == 100 || !i32.IsNull(i))
		}
		for _, step := range []int64{1, 7, 0} {
			want := scanRanges(ctx, t, mem, tbl, req, step, func(b arrow.RecordBatch) arrow.RecordBatch {
				return takeRows(t, mem, b, selectKeep(b.Column(1), b.Column(2), keep))
			})
			if pct == 50 {
				require.Positive(t, want.NumRows())
			}
			for _, maxKept := range []float64{0, 1} { // always decode in full, never
				t.Run(fmt.Sprintf("pct%d/step%d/max%v", pct, step, maxKept), func(t *testing.T) {
					pre := req
					pre.Prefilter = &catalog.Prefilter{
						Columns: []int{1, 2},
						MaxKept: maxKept,
						Select: func(_ context.Context, b arrow.RecordBatch) ([]int32, error) {
							require.Equal(t, int64(2), b.NumCols())
							return selectKeep(b.Column(0), b.Column(1), keep), nil
						},
						Take: func(_ context.Context, b arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error) {
							b.Retain()
							return takeRows(t, mem, b, sel), nil
						},
					}
					got := scanRanges(ctx, t, mem, tbl, pre, step, nil)
					defer got.Release()
					require.Equal(t, want.NumRows(), got.NumRows())
					for i := range want.NumCols() {
						require.True(t, array.Equal(want.Column(int(i)), got.Column(int(i))), "column %s", want.ColumnName(int(i)))
					}
				})
			}
			want.Release()
		}
	}
}

// selectKeep returns the rows i where keep(k[i], i32, i).
func selectKeep(k, i32 arrow.Array, keep func(int64, arrow.Array, int) bool) []int32 {
	var sel []int32
	ks := k.(*array.Int64)
	for i := range ks.Len() {
		if keep(ks.Value(i), i32, i) {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

// takeRows returns b's rows at sel and releases b.
func takeRows(t *testing.T, mem memory.Allocator, b arrow.RecordBatch, sel []int32) arrow.RecordBatch {
	defer b.Release()
	cols := make([]arrow.Array, b.NumCols())
	for c := range cols {
		parts := []arrow.Array{array.NewSlice(b.Column(c), 0, 0)}
		for i := 0; i < len(sel); {
			j := i + 1
			for j < len(sel) && sel[j] == sel[j-1]+1 {
				j++
			}
			parts = append(parts, array.NewSlice(b.Column(c), int64(sel[i]), int64(sel[j-1])+1))
			i = j
		}
		a, err := array.Concatenate(parts, mem)
		require.NoError(t, err)
		release(parts)
		cols[c] = a
	}
	out := array.NewRecordBatch(b.Schema(), cols, int64(len(sel)))
	release(cols)
	return out
}

// scanRanges scans every morsel of tbl in ranges of step rows (0: whole morsels), applies
// filter (if set) to each batch, and returns all rows as one batch.
func scanRanges(ctx context.Context, t *testing.T, mem memory.Allocator, tbl catalog.Table, req catalog.ScanRequest,
	step int64, filter func(arrow.RecordBatch) arrow.RecordBatch) arrow.RecordBatch {
	ms, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	var batches []arrow.RecordBatch
	var sc *arrow.Schema
	for _, m := range ms {
		var ranges []catalog.Morsel
		if step == 0 {
			ranges = []catalog.Morsel{m}
		} else {
			for s := m.Start; s < min(m.End, m.Start+40*step); s += step {
				ranges = append(ranges, catalog.Morsel{Fragment: m.Fragment, Start: s, End: min(s+step, m.End)})
			}
		}
		for _, r := range ranges {
			rd, err := tbl.Scan(ctx, req, r, mem)
			require.NoError(t, err)
			if req.Prefilter != nil {
				p, ok := rd.(catalog.Prefiltered)
				require.True(t, ok && p.Prefiltered(), "lance readers apply prefilters")
			}
			sc = rd.Schema()
			for {
				b, err := rd.Next(ctx)
				require.NoError(t, err)
				if b == nil {
					break
				}
				if filter != nil {
					b = filter(b)
				}
				batches = append(batches, b)
			}
			require.NoError(t, rd.Close())
		}
	}
	defer release(batches)
	cols := make([]arrow.Array, sc.NumFields())
	var n int64
	for c := range cols {
		parts := []arrow.Array{}
		for _, b := range batches {
			parts = append(parts, b.Column(c))
		}
		if len(parts) == 0 {
			b := array.NewBuilder(mem, sc.Field(c).Type)
			cols[c] = b.NewArray()
			b.Release()
			continue
		}
		a, err := array.Concatenate(parts, mem)
		require.NoError(t, err)
		cols[c] = a
		n = int64(a.Len())
	}
	out := array.NewRecordBatch(sc, cols, n)
	release(cols)
	return out
}
