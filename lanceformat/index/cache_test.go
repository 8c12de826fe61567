package index_test

import (
	"context"
	"path"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/index"
)

// Pages and bitmaps a search read are kept in the page cache: searching again reads
// nothing (the index files can be gone) and answers the same; with the cache disabled the
// files are read again.
func TestPageCacheServesRepeatedSearches(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	defer index.SetCacheBytes(index.DefaultCacheBytes)
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	var addrs []uint64
	for i := range 200 {
		ib.Append(int64(i * 3))
		sb.Append([]string{"a", "b", "c", "d"}[i%4])
		addrs = append(addrs, uint64(i/100)<<32|uint64(i%100))
	}
	ints, strs := ib.NewArray(), sb.NewArray()
	ib.Release()
	sb.Release()
	defer ints.Release()
	defer strs.Release()
	cases := []struct {
		name    string
		typ     index.Type
		vals    arrow.Array
		colType arrow.DataType
		q       index.Query
		want    []uint64
	}{
		{"btree range", index.TypeBTree, ints, arrow.PrimitiveTypes.Int64,
			q(index.OpBetween, i64(30), i64(40)), []uint64{10, 11, 12, 13}},
		{"btree point in fragment 1", index.TypeBTree, ints, arrow.PrimitiveTypes.Int64,
			q(index.OpEq, i64(3*150)), []uint64{1<<32 | 50}},
		{"bitmap", index.TypeBitmap, strs, arrow.BinaryTypes.String,
			q(index.OpIn, scalar.NewStringScalar("b"), scalar.NewStringScalar("zz")), stride(addrs, 1, 4)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			index.SetCacheBytes(index.DefaultCacheBytes)
			st := newMemStore()
			col := &index.Column{Values: c.vals, Addrs: addrs, Fragments: []uint32{0, 1}}
			built, err := index.Write(ctx, st, "root", c.typ, col, &index.WriteOptions{BTreeBatchSize: 8}, mem)
			require.NoError(t, err)
			dir := path.Join("root", built.Dir)
			ix, err := index.OpenSegment(ctx, st, dir, c.typ, c.colType, built.Fragments, mem)
			require.NoError(t, err)
			first, err := ix.Search(ctx, c.q)
			require.NoError(t, err)
			require.Equal(t, c.want, first.Rows.Addrs())
			before := index.PageCacheStats()
			require.Positive(t, before.Entries)

			// Truncate the index's data: only the cache can answer now.
			saved := map[string][]byte{}
			st.mu.Lock()
			for k, v := range st.m {
				if strings.HasPrefix(k, dir+"/") {
					saved[k], st.m[k] = v, v[:0]
				}
			}
			st.mu.Unlock()
			again, err := ix.Search(ctx, c.q)
			require.NoError(t, err)
			require.Equal(t, c.want, again.Rows.Addrs())
			after := index.PageCacheStats()
			require.Greater(t, after.Hits, before.Hits)
			require.Equal(t, before.Misses, after.Misses)

			index.SetCacheBytes(0)
			_, err = ix.Search(ctx, c.q)
			require.Error(t, err, "with the cache disabled the truncated files are read")
			st.mu.Lock()
			for k, v := range saved {
				st.m[k] = v
			}
			st.mu.Unlock()
			third, err := ix.Search(ctx, c.q)
			require.NoError(t, err)
			require.Equal(t, c.want, third.Rows.Addrs())
			require.Zero(t, index.PageCacheStats().Entries)
		})
	}
}

// stride returns every n-th element of xs starting at first.
func stride(xs []uint64, first, n int) []uint64 {
	var out []uint64
	for i := first; i < len(xs); i += n {
		out = append(out, xs[i])
	}
	return out
}
