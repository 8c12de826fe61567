package encoding

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
)

// A corrupt dictionary (offsets missing, decreasing, negative or past its bytes; fixed
// values shorter than its count) makes gathering fail with ErrCorrupt instead of
// panicking, on the bulk path, the cached path (mini-block pages) and the slot-by-slot
// path (dictionaries with nulls), and leaves the output builder unchanged.
func TestGatherCorruptDictionary(t *testing.T) {
	str := func(n int, offs []int64, data string) *Builder {
		return &Builder{typ: arrow.BinaryTypes.String, kind: KindVariable, n: n,
			valid: validity{n: n}, offsets: offs, data: []byte(data)}
	}
	tests := []struct {
		name string
		dict *Builder
	}{
		{"offsets shorter than n+1", str(3, []int64{0, 1, 2}, "abc")},
		{"no offsets at all", str(2, nil, "ab")},
		{"decreasing offsets", str(3, []int64{0, 2, 1, 3}, "abc")},
		{"negative first offset", str(2, []int64{-1, 1, 2}, "ab")},
		{"offsets past the bytes", str(2, []int64{0, 1, 9}, "ab")},
		{"long values, decreasing", str(2, []int64{0, 40, 39}, string(make([]byte, 40)))},
		{"fixed values short", &Builder{typ: arrow.PrimitiveTypes.Int32, kind: KindFixed, bits: 32, n: 3,
			valid: validity{n: 3}, fixed: make([]byte, 8)}},
	}
	idx := []byte{0, 1, 2, 1}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"bulk", "cached", "slots"} {
				d := *tc.dict
				if path == "slots" {
					d.valid = validity{n: d.n, nulls: 1, bits: []byte{0xfe}}
				}
				b, err := NewBuilder(d.typ)
				require.NoError(t, err)
				var short *shortDict
				cache := (**shortDict)(nil)
				if path == "cached" {
					cache = &short
				}
				err = b.appendGather(&d, cache, idx, 8, len(idx))
				require.ErrorIs(t, err, ErrCorrupt, path)
				require.Equal(t, 0, b.Len(), path)
				require.Nil(t, short, "%s: a failed check caches nothing", path)
			}
		})
	}
}

// A valid dictionary is checked once per cache: the cached table is reused on the next
// chunk and the values come out right.
func TestGatherCachedDictionary(t *testing.T) {
	dict := &Builder{typ: arrow.BinaryTypes.String, kind: KindVariable, n: 3,
		valid: validity{n: 3}, offsets: []int64{0, 1, 1, 4}, data: []byte("abcd")}
	b, err := NewBuilder(arrow.BinaryTypes.String)
	require.NoError(t, err)
	var short *shortDict
	require.NoError(t, b.appendGather(dict, &short, []byte{2, 0}, 8, 2))
	require.NotNil(t, short)
	first := short
	require.NoError(t, b.appendGather(dict, &short, []byte{1, 7, 2}, 8, 3))
	require.Same(t, first, short)
	require.Equal(t, 5, b.Len())
	want := []string{"bcd", "a", "", "", "bcd"}
	for i, w := range want {
		require.Equal(t, w, string(b.data[b.offsets[i]:b.offsets[i+1]]), "slot %d", i)
	}
}
