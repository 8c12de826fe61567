package index_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/index"
)

// TestLegacyBTreeEmptyString: a legacy v1 string BTree holding the empty string (and no
// nulls). v1 var-binary pages read an empty value of a nullable field as null; the index
// must still find those rows, as its answer says Exact.
func TestLegacyBTreeEmptyString(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	keys := []legacyKey{{"", 7}, {"", 8}}
	for i := range 20 {
		keys = append(keys, legacyKey{fmt.Sprintf("k%02d", i), uint64(100 + i)})
	}
	dir := writeLegacyBTree(t, "string", keys, 4)
	ctx := context.Background()
	ix, err := index.OpenSegment(ctx, dirStore{Root: dir}, ".", index.TypeBTree, arrow.BinaryTypes.String,
		[]uint32{0}, mem)
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		q    index.Query
		want []uint64
	}{
		{"eq empty", q(index.OpEq, str("")), []uint64{7, 8}},
		{"lt k00", q(index.OpLt, str("k00")), []uint64{7, 8}},
		{"is null", q(index.OpIsNull), []uint64{}},
	} {
		res, err := ix.Search(ctx, c.q)
		require.NoError(t, err)
		if res.Kind == index.NotAnswerable {
			continue
		}
		got := append([]uint64{}, res.Rows.Addrs()...)
		slices.Sort(got)
		require.Equal(t, c.want, got, "%s (kind %v)", c.name, res.Kind)
	}
}
