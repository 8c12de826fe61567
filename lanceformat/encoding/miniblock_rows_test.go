package encoding_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// DecodeRowsInto appends any window of a levels-free mini-block page, cutting the chunks
// at its ends, exactly as the source values (bit-packed ints, dictionary strings, FSST
// strings, fixed-size lists), into a builder reserved in Arrow memory.
func TestDecodeRowsIntoWindows(t *testing.T) {
	const n = 5000
	words := []string{"carefully", "final", "deposits", "sleep", "quickly", "bold"}
	cols := []struct {
		name string
		typ  arrow.DataType
		val  func(i int) string // JSON of value i
		enc  string             // what the page's value encoding must mention
	}{
		{"int64", arrow.PrimitiveTypes.Int64, func(i int) string { return strconv.Itoa(i*4 + i%3) }, "inline_bitpacking"},
		{"dict-strings", arrow.BinaryTypes.String, func(i int) string { return `"` + words[i%3] + `"` }, "dictionary"},
		{"fsst-strings", arrow.BinaryTypes.String, func(i int) string {
			return `"` + words[i%6] + " " + words[(i*7)%6] + " " + strconv.Itoa(i*7919) + `"`
		}, "fsst"},
		{"vectors", arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32), func(i int) string {
			return fmt.Sprintf("[%d, %d.5, -1]", i, i)
		}, "fixed_size_list"},
	}
	for _, c := range cols {
		t.Run(c.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			vals := make([]string, n)
			for i := range vals {
				vals[i] = c.val(i)
			}
			src, _, err := array.FromJSON(mem, c.typ, strings.NewReader("["+strings.Join(vals, ",")+"]"))
			require.NoError(t, err)
			defer src.Release()
			leaves, err := encoding.ShredLeaves(src)
			require.NoError(t, err)
			require.Len(t, leaves, 1)
			page, err := encoding.EncodeLeaf21(leaves[0], true)
			require.NoError(t, err)
			mb := page.Layout.GetMiniBlockLayout()
			require.NotNil(t, mb, "a mini-block page")
			require.Nil(t, mb.GetDefCompression())
			var dict []byte
			if mb.GetDictionary() != nil {
				dict = page.Buffers[2]
			}
			chunks, err := encoding.ParseChunkMeta(page.Buffers[0], mb.GetNumItems(), uint64(len(page.Buffers[1])), mb.GetHasLargeChunk())
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(chunks), 2, "more than one chunk")
			desc := fmt.Sprint(mb.GetValueCompression())
			if mb.GetDictionary() != nil {
				desc = "dictionary " + desc
			}
			require.Contains(t, desc, c.enc)
			for _, w := range [][2]uint64{{0, n}, {0, 1}, {1, 2}, {3, 4099}, {1021, 1029}, {n - 7, n}, {n, n}} {
				m, err := encoding.NewMiniBlock(mb, c.typ, dict)
				require.NoError(t, err)
				sel := window(chunks, w[0], w[1])
				var data []byte
				if len(sel) > 0 {
					data = page.Buffers[1][sel[0].Off : sel[len(sel)-1].Off+sel[len(sel)-1].Size]
				}
				b, err := encoding.NewBuilder(c.typ)
				require.NoError(t, err)
				b.ReserveIn(mem, int(w[1]-w[0]))
				require.NoError(t, m.DecodeRowsInto(b, sel, data, w[0], w[1]))
				got, err := b.FinishArray(mem)
				b.Release()
				require.NoError(t, err)
				want := array.NewSlice(src, int64(w[0]), int64(w[1]))
				require.True(t, array.Equal(want, got), "window %v", w)
				want.Release()
				got.Release()
			}
		})
	}
}

// window returns the chunks holding items [lo, hi).
func window(chunks []encoding.Chunk, lo, hi uint64) []encoding.Chunk {
	var out []encoding.Chunk
	for _, c := range chunks {
		if c.FirstItem+c.Items > lo && c.FirstItem < hi {
			out = append(out, c)
		}
	}
	return out
}

func TestDecodeRowsIntoRejects(t *testing.T) {
	flat := &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Flat{Flat: &enc21pb.Flat{BitsPerValue: 32}}}
	plain := &enc21pb.MiniBlockLayout{ValueCompression: flat, NumBuffers: 1, NumItems: 100}
	withDef := &enc21pb.MiniBlockLayout{ValueCompression: flat, NumBuffers: 1, NumItems: 100, DefCompression: flat}
	chunk := encoding.Chunk{Off: 0, Size: 8, FirstItem: 10, Items: 10}
	for _, tc := range []struct {
		name   string
		layout *enc21pb.MiniBlockLayout
		chunks []encoding.Chunk
		data   []byte
		lo, hi uint64
	}{
		{"levels", withDef, nil, nil, 0, 0},
		{"reversed window", plain, nil, nil, 5, 4},
		{"no chunks for rows", plain, nil, nil, 0, 1},
		{"chunks start late", plain, []encoding.Chunk{chunk}, make([]byte, 8), 5, 12},
		{"chunks end early", plain, []encoding.Chunk{chunk}, make([]byte, 8), 12, 25},
		{"chunk past the bytes", plain, []encoding.Chunk{chunk}, make([]byte, 4), 12, 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := encoding.NewMiniBlock(tc.layout, arrow.PrimitiveTypes.Int32, nil)
			require.NoError(t, err)
			b, err := encoding.NewBuilder(arrow.PrimitiveTypes.Int32)
			require.NoError(t, err)
			require.ErrorIs(t, m.DecodeRowsInto(b, tc.chunks, tc.data, tc.lo, tc.hi), encoding.ErrCorrupt)
		})
	}
}
