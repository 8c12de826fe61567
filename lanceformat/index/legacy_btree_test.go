package index_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/index"
)

// legacyKey is one row of a synthetic legacy BTree: its key (nil is null) and address.
type legacyKey struct {
	v    any
	addr uint64
}

// writeLegacyBTree writes a BTree segment in the legacy v1 layout (testdata/legacy_btree.py)
// over keys (sorted, nulls first) with page rows per page, and returns its directory.
func writeLegacyBTree(t *testing.T, typ string, keys []legacyKey, page int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "seg")
	spec := map[string]any{"type": typ, "page": page, "values": []any{}, "ids": []uint64{}}
	for _, k := range keys {
		spec["values"] = append(spec["values"].([]any), k.v)
		spec["ids"] = append(spec["ids"].([]uint64), k.addr)
	}
	in, err := json.Marshal(spec)
	require.NoError(t, err)
	c := exec.Command(testutil.Python(t), filepath.Join("testdata", "legacy_btree.py"), dir)
	c.Stdin = bytes.NewReader(in)
	out, err := c.CombinedOutput()
	require.NoError(t, err, string(out))
	return dir
}

// legacyKeys returns n sorted keys with duplicates and gaps (key i is 2*(i/3) - 300, or
// its "k%05d" string of 2*(i/3)), spread over fragments 0-2.
func legacyKeys(n int, str bool) []legacyKey {
	out := make([]legacyKey, n)
	for i := range out {
		var v any = int64(2*(i/3) - 300)
		if str {
			v = fmt.Sprintf("k%05d", 2*(i/3))
		}
		out[i] = legacyKey{v: v, addr: uint64(i%3)<<32 | uint64(i)}
	}
	return out
}

// expectLegacy returns the sorted addresses of the keys match accepts (nil keys are null).
func expectLegacy(keys []legacyKey, match func(v any) bool) []uint64 {
	out := []uint64{}
	for _, k := range keys {
		if match(k.v) {
			out = append(out, k.addr)
		}
	}
	slices.Sort(out)
	return out
}

// BTrees in legacy v1 files (Lance ≤ 0.20): pages are page_data's record batches, here of
// 37 rows (not the 4,096-row pages of the newer layout), so a wrong page mapping returns
// wrong rows. Results equal a brute-force filter of the keys, on a cold and a warm page cache.
func TestLegacyBTreePages(t *testing.T) {
	t.Parallel()
	i64v := func(v any) int64 { return v.(int64) }
	strv := func(v any) string { return v.(string) }
	cases := []struct {
		name  string
		str   bool
		q     index.Query
		match func(v any) bool
	}{
		{"eq", false, q(index.OpEq, i64(100)), func(v any) bool { return v != nil && i64v(v) == 100 }},
		{"eq gap", false, q(index.OpEq, i64(101)), func(v any) bool { return false }},
		{"in", false, q(index.OpIn, i64(-300), i64(0), i64(99), i64(5000)),
			func(v any) bool { return v != nil && slices.Contains([]int64{-300, 0, 99, 5000}, i64v(v)) }},
		{"lt", false, q(index.OpLt, i64(-250)), func(v any) bool { return v != nil && i64v(v) < -250 }},
		{"ge", false, q(index.OpGe, i64(300)), func(v any) bool { return v != nil && i64v(v) >= 300 }},
		{"between", false, q(index.OpBetween, i64(10), i64(200)),
			func(v any) bool { return v != nil && i64v(v) >= 10 && i64v(v) <= 200 }},
		{"is null", false, q(index.OpIsNull), func(v any) bool { return v == nil }},
		{"is not null", false, q(index.OpIsNotNull), func(v any) bool { return v != nil }},
		{"str eq", true, q(index.OpEq, str("k00100")), func(v any) bool { return v != nil && strv(v) == "k00100" }},
		{"str in", true, q(index.OpIn, str("k00000"), str("k00401"), str("k00600")),
			func(v any) bool { return v != nil && (strv(v) == "k00000" || strv(v) == "k00600") }},
		{"str between", true, q(index.OpBetween, str("k00010"), str("k00200")),
			func(v any) bool { return v != nil && strv(v) >= "k00010" && strv(v) <= "k00200" }},
	}
	keys := map[bool][]legacyKey{false: legacyKeys(1000, false), true: legacyKeys(1000, true)}
	dirs := map[bool]string{false: writeLegacyBTree(t, "int64", keys[false], 37),
		true: writeLegacyBTree(t, "string", keys[true], 37)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			colType := arrow.DataType(arrow.PrimitiveTypes.Int64)
			if c.str {
				colType = arrow.BinaryTypes.String
			}
			ix, err := index.OpenSegment(ctx, dirStore{Root: dirs[c.str]}, ".", index.TypeBTree, colType,
				[]uint32{0, 1, 2}, mem)
			require.NoError(t, err)
			want := expectLegacy(keys[c.str], c.match)
			for range 2 { // cold, then warm page cache
				res, err := ix.Search(ctx, c.q)
				require.NoError(t, err)
				require.Equal(t, index.Exact, res.Kind)
				got := append([]uint64{}, res.Rows.Addrs()...)
				slices.Sort(got)
				require.Equal(t, want, got)
			}
		})
	}
}

// Legacy v1 pages cannot mark nulls, so a legacy BTree over a column with nulls is not
// answerable at all (the caller scans).
func TestLegacyBTreeNulls(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	keys := legacyKeys(100, false)
	for i := range 5 {
		keys[i].v = nil
	}
	dir := writeLegacyBTree(t, "int64", keys, 16)
	ctx := context.Background()
	ix, err := index.OpenSegment(ctx, dirStore{Root: dir}, ".", index.TypeBTree, arrow.PrimitiveTypes.Int64,
		[]uint32{0, 1, 2}, mem)
	require.NoError(t, err)
	for _, qq := range []index.Query{q(index.OpEq, i64(0)), q(index.OpIsNull), q(index.OpGe, i64(-200))} {
		res, err := ix.Search(ctx, qq)
		require.NoError(t, err)
		require.Equal(t, index.NotAnswerable, res.Kind, qq.Op.String())
		require.Contains(t, res.Reason, "not supported yet: legacy v1 BTree with nulls")
	}
}

// Only BTree files are read in the legacy v1 format: a v1 bitmap file is "not supported
// yet" (v1 pages cannot mark the null key).
func TestLegacyBitmapNotSupported(t *testing.T) {
	t.Parallel()
	dir := writeLegacyBTree(t, "int64", legacyKeys(10, false), 4)
	require.NoError(t, os.Rename(filepath.Join(dir, "page_lookup.lance"), filepath.Join(dir, "bitmap_page_lookup.lance")))
	_, err := index.OpenSegment(context.Background(), dirStore{Root: dir}, ".", index.TypeBitmap,
		arrow.PrimitiveTypes.Int64, []uint32{0}, memory.NewGoAllocator())
	require.ErrorIs(t, err, index.ErrNotSupported)
	require.ErrorContains(t, err, "not supported yet: bitmap_page_lookup.lance in the legacy v1 Lance file format")
}
