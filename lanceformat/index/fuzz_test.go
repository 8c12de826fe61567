package index_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/index"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// memStore is an in-memory lanceio.ObjectStore, for fuzzing and writer tests.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newMemStore() *memStore { return &memStore{m: map[string][]byte{}} }

func (s *memStore) ReadRange(_ context.Context, p string, off, n int64) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[p]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", p, lanceio.ErrNotFound)
	}
	if off < 0 || n < 0 || off+n > int64(len(b)) {
		return nil, fmt.Errorf("read %s [%d,+%d): past the end (%d)", p, off, n, len(b))
	}
	return b[off : off+n], nil
}

func (s *memStore) Size(_ context.Context, p string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[p]
	if !ok {
		return 0, fmt.Errorf("size %s: %w", p, lanceio.ErrNotFound)
	}
	return int64(len(b)), nil
}

func (s *memStore) List(_ context.Context, prefix string) ([]lanceio.ObjectInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []lanceio.ObjectInfo
	for _, k := range slices.Sorted(maps.Keys(s.m)) {
		if strings.HasPrefix(k, prefix) {
			out = append(out, lanceio.ObjectInfo{Path: k, Size: int64(len(s.m[k]))})
		}
	}
	return out, nil
}

func (s *memStore) Put(_ context.Context, p string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[p] = slices.Clone(data)
	return nil
}

func (s *memStore) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	if _, err := s.Size(ctx, p); err == nil {
		return fmt.Errorf("put %s: %w", p, lanceio.ErrAlreadyExists)
	}
	return s.Put(ctx, p, data)
}

func (s *memStore) Delete(_ context.Context, p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[p]; !ok {
		return fmt.Errorf("delete %s: %w", p, lanceio.ErrNotFound)
	}
	delete(s.m, p)
	return nil
}

// smallColumn is a 2-fragment Int64 column with nulls and repeats.
func smallColumn(mem memory.Allocator) *index.Column {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	var addrs []uint64
	for i := range 40 {
		if i%7 == 0 {
			b.AppendNull()
		} else {
			b.Append(int64(i % 9))
		}
		addrs = append(addrs, uint64(i/20)<<32|uint64(i%20))
	}
	return &index.Column{Values: b.NewArray(), Addrs: addrs, Fragments: []uint32{0, 1}}
}

// writtenFiles writes an index of type t over smallColumn into a memStore and returns
// its files' bytes by name.
func writtenFiles(t testing.TB, typ index.Type) map[string][]byte {
	mem := memory.NewGoAllocator()
	col := smallColumn(mem)
	defer col.Release()
	st := newMemStore()
	b, err := index.Write(context.Background(), st, "", typ, col,
		&index.WriteOptions{BTreeBatchSize: 8, RowsPerZone: 8, BloomItems: 8}, mem)
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, f := range b.Files {
		out[f.Path] = st.m[b.Dir+"/"+f.Path]
	}
	return out
}

var fuzzQueries = []index.Query{
	q(index.OpEq, i64(3)), q(index.OpIn, i64(1), i64(5)), q(index.OpLt, i64(4)), q(index.OpGe, i64(6)),
	q(index.OpBetween, i64(2), i64(5)), q(index.OpIsNull), q(index.OpIsNotNull), q(index.OpArrayHasAny, i64(3)),
	q(index.OpArrayHasAll, i64(3), i64(4)),
}

// fuzzSegment stores files under dir and runs every query on the segment: it must never
// panic, and failures must be errors.
func fuzzSegment(typ index.Type, files map[string][]byte) {
	ctx := context.Background()
	st := newMemStore()
	for name, b := range files {
		st.m["seg/"+name] = b
	}
	mem := memory.NewGoAllocator()
	ix, err := index.OpenSegment(ctx, st, "seg", typ, arrow.PrimitiveTypes.Int64, []uint32{0, 1}, mem)
	if err != nil {
		return
	}
	for _, qq := range fuzzQueries {
		_, _ = ix.Search(ctx, qq)
	}
}

func FuzzRowTreeMap(f *testing.F) {
	s := index.RowSetOf(0, 1, 70000, 3<<32|9)
	s.AddFragment(7)
	f.Add(index.EncodeRowTreeMap(s))
	f.Add(index.EncodeRowTreeMap(index.RowSetOf()))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := index.DecodeRowTreeMap(b)
		if err != nil {
			require.ErrorIs(t, err, index.ErrCorruptIndex)
			return
		}
		again, err := index.DecodeRowTreeMap(index.EncodeRowTreeMap(got))
		require.NoError(t, err)
		require.Equal(t, got.Addrs(), again.Addrs())
		require.Equal(t, got.Fragments(), again.Fragments())
	})
}

func FuzzSBBF(f *testing.F) {
	g := index.NewSBBF(2)
	g.Insert(42)
	f.Add(g.Encode())
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := index.DecodeSBBF(b)
		if err != nil {
			require.ErrorIs(t, err, index.ErrCorruptIndex)
			return
		}
		require.Equal(t, b, got.Encode())
	})
}

func FuzzBTreeFiles(f *testing.F) {
	files := writtenFiles(f, index.TypeBTree)
	f.Add(files["page_lookup.lance"], files["page_data.lance"])
	f.Fuzz(func(t *testing.T, lookup, data []byte) {
		fuzzSegment(index.TypeBTree, map[string][]byte{"page_lookup.lance": lookup, "page_data.lance": data})
	})
}

func FuzzBitmapFile(f *testing.F) {
	f.Add(writtenFiles(f, index.TypeBitmap)["bitmap_page_lookup.lance"])
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzSegment(index.TypeBitmap, map[string][]byte{"bitmap_page_lookup.lance": b})
		fuzzSegment(index.TypeLabelList, map[string][]byte{"bitmap_page_lookup.lance": b})
	})
}

func FuzzZoneMapFile(f *testing.F) {
	f.Add(writtenFiles(f, index.TypeZoneMap)["zonemap.lance"])
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzSegment(index.TypeZoneMap, map[string][]byte{"zonemap.lance": b})
	})
}

func FuzzBloomFilterFile(f *testing.F) {
	f.Add(writtenFiles(f, index.TypeBloomFilter)["bloomfilter.lance"])
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzSegment(index.TypeBloomFilter, map[string][]byte{"bloomfilter.lance": b})
	})
}

// The in-memory writer round trip: every type written over smallColumn answers queries
// like a direct evaluation of the column.
func TestWriteReadRoundTrip(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	col := smallColumn(mem)
	defer col.Release()
	vals := col.Values.(*array.Int64)
	match := func(pred func(v int64, null bool) bool) []uint64 {
		out := []uint64{}
		for i, a := range col.Addrs {
			if pred(vals.Value(i), vals.IsNull(i)) {
				out = append(out, a)
			}
		}
		return out
	}
	cases := []struct {
		q    index.Query
		want []uint64
	}{
		{q(index.OpEq, i64(3)), match(func(v int64, n bool) bool { return !n && v == 3 })},
		{q(index.OpIn, i64(1), i64(5)), match(func(v int64, n bool) bool { return !n && (v == 1 || v == 5) })},
		{q(index.OpLt, i64(4)), match(func(v int64, n bool) bool { return !n && v < 4 })},
		{q(index.OpGe, i64(6)), match(func(v int64, n bool) bool { return !n && v >= 6 })},
		{q(index.OpBetween, i64(2), i64(5)), match(func(v int64, n bool) bool { return !n && v >= 2 && v <= 5 })},
		{q(index.OpIsNull), match(func(_ int64, n bool) bool { return n })},
		{q(index.OpIsNotNull), match(func(_ int64, n bool) bool { return !n })},
	}
	for _, typ := range []index.Type{index.TypeBTree, index.TypeBitmap, index.TypeZoneMap, index.TypeBloomFilter} {
		t.Run(typ.String(), func(t *testing.T) {
			st := newMemStore()
			b, err := index.Write(ctx, st, "root", typ, col, &index.WriteOptions{BTreeBatchSize: 8, RowsPerZone: 8, BloomItems: 8}, mem)
			require.NoError(t, err)
			ix, err := index.OpenSegment(ctx, st, "root/"+b.Dir, typ, arrow.PrimitiveTypes.Int64, b.Fragments, mem)
			require.NoError(t, err)
			for _, c := range cases {
				res, err := ix.Search(ctx, c.q)
				require.NoError(t, err)
				switch res.Kind {
				case index.Exact:
					require.Equal(t, c.want, append([]uint64{}, res.Rows.Addrs()...), c.q.String())
				case index.AtMost:
					for _, a := range c.want {
						require.True(t, res.MayContain(a), "%s: %d", c.q, a)
					}
					require.Less(t, len(res.Zones), 10, "%s: 5 zones of 8 rows at most", c.q)
				default:
					require.Equal(t, index.TypeBloomFilter, typ, "%s: %s", c.q, res.Reason)
				}
			}
		})
	}
}
