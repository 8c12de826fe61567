package table_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/table"
)

func TestRoaringRoundTrip(t *testing.T) {
	seq := func(start, end, step uint32) []uint32 {
		var out []uint32
		for v := start; v < end; v += step {
			out = append(out, v)
		}
		return out
	}
	cases := map[string][]uint32{
		"empty":               nil,
		"one":                 {7},
		"array":               {0, 1, 5, 65535},
		"two containers":      {1, 65536, 65537, 1 << 20},
		"bitmap container":    seq(0, 10000, 2),
		"array then bitmap":   append(seq(0, 100, 3), seq(1<<16, 1<<16+9000, 1)...),
		"max value":           {math.MaxUint32},
		"4096 is array":       seq(0, 4096, 1),
		"4097 becomes bitmap": seq(0, 4097, 1),
	}
	for name, vals := range cases {
		t.Run(name, func(t *testing.T) {
			data := table.EncodeRoaring(vals)
			got, err := table.DecodeRoaring(data, math.MaxUint32+1)
			require.NoError(t, err)
			require.Equal(t, vals, got)
		})
	}
}

// runBitmap hand-builds a bitmap with run containers (cookie 12347), as roaring-rs writes
// after run optimisation.
func runBitmap(containers []struct {
	key  uint16
	runs [][2]uint16 // start, length-1
}) []byte {
	n := len(containers)
	out := binary.LittleEndian.AppendUint32(nil, uint32(12347)|uint32(n-1)<<16)
	flags := make([]byte, (n+7)/8)
	for i := range containers {
		flags[i/8] |= 1 << (i % 8)
	}
	out = append(out, flags...)
	for _, c := range containers {
		card := 0
		for _, r := range c.runs {
			card += int(r[1]) + 1
		}
		out = binary.LittleEndian.AppendUint16(out, c.key)
		out = binary.LittleEndian.AppendUint16(out, uint16(card-1))
	}
	if n >= 4 {
		for range containers {
			out = binary.LittleEndian.AppendUint32(out, 0) // offsets are not used by the decoder
		}
	}
	for _, c := range containers {
		out = binary.LittleEndian.AppendUint16(out, uint16(len(c.runs)))
		for _, r := range c.runs {
			out = binary.LittleEndian.AppendUint16(out, r[0])
			out = binary.LittleEndian.AppendUint16(out, r[1])
		}
	}
	return out
}

func TestRoaringRunContainers(t *testing.T) {
	type c = struct {
		key  uint16
		runs [][2]uint16
	}
	data := runBitmap([]c{{0, [][2]uint16{{2, 2}, {10, 0}}}, {1, [][2]uint16{{0, 1}}}})
	got, err := table.DecodeRoaring(data, math.MaxUint32+1)
	require.NoError(t, err)
	require.Equal(t, []uint32{2, 3, 4, 10, 65536, 65537}, got)

	// Four containers: the offset header is present.
	data = runBitmap([]c{{0, [][2]uint16{{0, 0}}}, {1, [][2]uint16{{0, 0}}}, {2, [][2]uint16{{0, 0}}}, {3, [][2]uint16{{5, 1}}}})
	got, err = table.DecodeRoaring(data, math.MaxUint32+1)
	require.NoError(t, err)
	require.Equal(t, []uint32{0, 1 << 16, 2 << 16, 3<<16 + 5, 3<<16 + 6}, got)
}

func TestRoaringCorrupt(t *testing.T) {
	good := table.EncodeRoaring([]uint32{1, 2, 70000})
	cases := map[string]struct {
		data  []byte
		limit uint64
	}{
		"empty":           {nil, math.MaxUint32 + 1},
		"bad cookie":      {[]byte{1, 2, 3, 4, 0, 0, 0, 0}, math.MaxUint32 + 1},
		"truncated":       {good[:len(good)-1], math.MaxUint32 + 1},
		"header only":     {good[:8], math.MaxUint32 + 1},
		"above limit":     {good, 70000},
		"too many conts":  {binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 12346), 1<<20), math.MaxUint32 + 1},
		"keys decreasing": {table.EncodeRoaring([]uint32{70000, 1}), math.MaxUint32 + 1},
		"unsorted array":  {table.EncodeRoaring([]uint32{5, 3}), math.MaxUint32 + 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := table.DecodeRoaring(c.data, c.limit)
			require.Error(t, err)
		})
	}
}

func writeDeletionIPC(t testing.TB, mem memory.Allocator, typ arrow.DataType, vals []int64, opts ...ipc.Option) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{{Name: "row_id", Type: typ}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for _, v := range vals {
		switch fb := b.Field(0).(type) {
		case *array.Uint32Builder:
			fb.Append(uint32(v))
		case *array.Int32Builder:
			fb.Append(int32(v))
		case *array.Int64Builder:
			fb.Append(v)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, append([]ipc.Option{ipc.WithSchema(sc), ipc.WithAllocator(mem)}, opts...)...)
	require.NoError(t, err)
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func TestDecodeDeletionArrow(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	cases := []struct {
		name    string
		typ     arrow.DataType
		vals    []int64
		opts    []ipc.Option
		limit   uint64
		want    []uint32
		wantErr bool
	}{
		{"uint32 unsorted", arrow.PrimitiveTypes.Uint32, []int64{392, 12, 7, 12}, nil, 1000, []uint32{7, 12, 392}, false},
		{"zstd", arrow.PrimitiveTypes.Uint32, []int64{5, 1, 3}, []ipc.Option{ipc.WithZstd()}, 10, []uint32{1, 3, 5}, false},
		{"lz4", arrow.PrimitiveTypes.Uint32, []int64{2, 0}, []ipc.Option{ipc.WithLZ4()}, 10, []uint32{0, 2}, false},
		{"int32", arrow.PrimitiveTypes.Int32, []int64{4, 2}, nil, 10, []uint32{2, 4}, false},
		{"empty", arrow.PrimitiveTypes.Uint32, nil, nil, 10, nil, false},
		{"negative int32", arrow.PrimitiveTypes.Int32, []int64{-1}, nil, 10, nil, true},
		{"above limit", arrow.PrimitiveTypes.Uint32, []int64{10}, nil, 10, nil, true},
		{"int64 column", arrow.PrimitiveTypes.Int64, []int64{1}, nil, 10, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := writeDeletionIPC(t, mem, c.typ, c.vals, c.opts...)
			got, err := table.DecodeDeletionArrow(data, c.limit)
			if c.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			if len(c.want) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, c.want, got)
		})
	}
	_, err := table.DecodeDeletionArrow([]byte("ARROW1 not really"), 10)
	require.Error(t, err)
}

func TestDeletionVector(t *testing.T) {
	var none *table.DeletionVector
	require.Zero(t, none.Len())
	require.False(t, none.Contains(0))
	require.Zero(t, none.CountIn(0, 100))
	dv := table.NewDeletionVector([]uint32{9, 1, 5, 5})
	require.Equal(t, []uint32{1, 5, 9}, dv.Offsets())
	cases := []struct {
		start, end uint64
		want       int
	}{{0, 10, 3}, {1, 2, 1}, {2, 5, 0}, {2, 6, 1}, {6, 100, 1}, {10, 5, 0}}
	for _, c := range cases {
		require.Equal(t, c.want, dv.CountIn(c.start, c.end), "[%d,%d)", c.start, c.end)
	}
	require.True(t, dv.Contains(5))
	require.False(t, dv.Contains(6))
	require.False(t, dv.Contains(1<<40))
}
