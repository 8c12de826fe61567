package index_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/index"
)

func TestTypeFromURL(t *testing.T) {
	for _, c := range []struct {
		url  string
		want index.Type
	}{
		{"/lance.table.BTreeIndexDetails", index.TypeBTree},
		{"/lance.index.pb.BTreeIndexDetails", index.TypeBTree}, // Lance 0.36.0's package mistake
		{"type.googleapis.com/lance.table.BitmapIndexDetails", index.TypeBitmap},
		{"/lance.table.labellistindexdetails", index.TypeLabelList}, // case-insensitive
		{"/lance.table.ZoneMapIndexDetails", index.TypeZoneMap},
		{"/lance.index.pb.BloomFilterIndexDetails", index.TypeBloomFilter},
		{"/lance.table.VectorIndexDetails", index.TypeVector},
		{"/lance.table.InvertedIndexDetails", index.TypeInverted},
		{"/lance.table.NGramIndexDetails", index.TypeNGram},
		{"/lance.index.pb.JsonIndexDetails", index.TypeJSON},
		{"/lance.table.FragmentReuseIndexDetails", index.TypeFragmentReuse},
		{"/lance.table.Nope", index.TypeUnknown},
		{"", index.TypeUnknown},
	} {
		require.Equal(t, c.want, index.TypeFromURL(c.url), c.url)
	}
	require.True(t, index.TypeZoneMap.Supported())
	require.False(t, index.TypeVector.Supported())
	require.True(t, index.TypeMemWal.System())
	require.Equal(t, "LabelList", index.TypeLabelList.String())
}

func TestRowSet(t *testing.T) {
	a := index.RowSetOf(1<<32|5, 3, 1, 3, 1<<32|2)
	require.Equal(t, []uint64{1, 3, 1<<32 | 2, 1<<32 | 5}, a.Addrs())
	require.Equal(t, 4, a.Len())
	require.True(t, a.Contains(1<<32|5))
	require.False(t, a.Contains(1<<32|4))
	require.False(t, a.Contains(2<<32|5))

	b := index.RowSetOf(3, 4)
	b.AddFragment(1)
	u := index.RowSetOf(a.Addrs()...)
	u.Union(b)
	require.True(t, u.IsFull(1))
	require.Equal(t, []uint64{1, 3, 4}, u.Addrs())

	i := index.RowSetOf(a.Addrs()...)
	i.Intersect(b)
	require.Equal(t, []uint64{3, 1<<32 | 2, 1<<32 | 5}, i.Addrs()) // whole fragment 1 keeps a's rows
	require.Equal(t, []uint32{0, 1}, i.Fragments())

	e := index.RowSetOf(7)
	e.Intersect(index.RowSetOf(8))
	require.Empty(t, e.Fragments())
}

func TestRowTreeMapRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name  string
		addrs []uint64
		full  []uint32
	}{
		{"empty", nil, nil},
		{"one", []uint64{42}, nil},
		{"several fragments", []uint64{0, 1, 70000, 3<<32 | 9, 3<<32 | 100000, 0xFFFFFFFF<<32 | 0xFFFFFFFF}, nil},
		{"whole fragment", []uint64{5}, []uint32{2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := index.RowSetOf(c.addrs...)
			for _, f := range c.full {
				s.AddFragment(f)
			}
			got, err := index.DecodeRowTreeMap(index.EncodeRowTreeMap(s))
			require.NoError(t, err)
			require.Equal(t, s.Addrs(), got.Addrs())
			require.Equal(t, s.Fragments(), got.Fragments())
			for _, f := range c.full {
				require.True(t, got.IsFull(f))
			}
		})
	}
}

func TestRowTreeMapCorrupt(t *testing.T) {
	valid := index.EncodeRowTreeMap(index.RowSetOf(1, 2, 1<<32|3))
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"short", []byte{1, 0}},
		{"too many entries", []byte{9, 0, 0, 0}},
		{"truncated bitmap", valid[:len(valid)-2]},
		{"trailing bytes", append(append([]byte{}, valid...), 0)},
		{"repeated fragment", []byte{2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := index.DecodeRowTreeMap(c.b)
			require.ErrorIs(t, err, index.ErrCorruptIndex)
		})
	}
}

func TestSBBF(t *testing.T) {
	f := index.NewSBBF(4)
	hashes := []uint64{0, 1, 0xDEADBEEFCAFEBABE, 1 << 63, 12345678901234}
	for _, h := range hashes {
		f.Insert(h)
	}
	g, err := index.DecodeSBBF(f.Encode())
	require.NoError(t, err)
	for _, h := range hashes {
		require.True(t, g.MayContain(h))
	}
	misses := 0
	for h := uint64(1000); h < 2000; h++ {
		if !g.MayContain(h * 0x9E3779B97F4A7C15) {
			misses++
		}
	}
	require.Greater(t, misses, 900, "a filter with 5 items must reject most other hashes")
	_, err = index.DecodeSBBF(make([]byte, 33))
	require.ErrorIs(t, err, index.ErrCorruptIndex)
	_, err = index.DecodeSBBF(nil)
	require.ErrorIs(t, err, index.ErrCorruptIndex)
}

// Query edge cases on a BTree: NULL operands match nothing, reversed BETWEEN is empty,
// unsupported value types are not answerable.
func TestQueryEdgeCases(t *testing.T) {
	ctx := context.Background()
	nullInt := scalar.MakeNullScalar(arrow.PrimitiveTypes.Int64)
	ix := openShared(t, "i_btree")
	for _, c := range []struct {
		name string
		q    index.Query
		kind index.Kind
		rows int
	}{
		{"= NULL", q(index.OpEq, nullInt), index.Exact, 0},
		{"< NULL", q(index.OpLt, nullInt), index.Exact, 0},
		{"IN (NULL)", q(index.OpIn, nullInt), index.Exact, 0},
		{"reversed BETWEEN", q(index.OpBetween, i64(9), i64(3)), index.Exact, 0},
		{"interval value", q(index.OpEq, scalar.NewMonthIntervalScalar(1)), index.NotAnswerable, 0},
		{"array op on btree", q(index.OpArrayHasAny, i64(1)), index.NotAnswerable, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := ix.Search(ctx, c.q)
			require.NoError(t, err)
			require.Equal(t, c.kind, res.Kind, res.Reason)
			if c.kind == index.Exact {
				require.Equal(t, c.rows, res.Rows.Len())
			}
		})
	}
	_, err := ix.Search(ctx, q(index.OpEq))
	require.ErrorContains(t, err, "want 1 values")
}
