package encoding_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
)

// packIndices packs idx as little-endian words of bits, after skew unused leading bytes
// (a skew that is not a multiple of the width leaves them unaligned).
func packIndices(idx []uint64, bits, skew int) []byte {
	w := bits / 8
	buf := make([]byte, skew+len(idx)*w)
	for i, k := range idx {
		var word [8]byte
		binary.LittleEndian.PutUint64(word[:], k)
		copy(buf[skew+i*w:], word[:w])
	}
	return buf[skew:]
}

// AppendGather copies dictionary values by index for every index width, value width and
// alignment, with an index past the dictionary giving a valid zero or empty slot.
func TestAppendGather(t *testing.T) {
	long := strings.Repeat("seventeen bytes!!", 2)
	tests := []struct {
		name string
		typ  arrow.DataType
		dict string
		want string // for indices 2, 0, 0, 9 (past the dictionary), 1
	}{
		{"int8", arrow.PrimitiveTypes.Int8, `[5, -6, 7]`, `[7, 5, 5, 0, -6]`},
		{"int16", arrow.PrimitiveTypes.Int16, `[500, -6, 7]`, `[7, 500, 500, 0, -6]`},
		{"int32", arrow.PrimitiveTypes.Int32, `[5, -600000, 7]`, `[7, 5, 5, 0, -600000]`},
		{"int64", arrow.PrimitiveTypes.Int64, `[5, -6, 70000000000]`, `[70000000000, 5, 5, 0, -6]`},
		{"decimal128", &arrow.Decimal128Type{Precision: 15, Scale: 2}, `["1.25", "-3.00", "99999.99"]`,
			`["99999.99", "1.25", "1.25", "0.00", "-3.00"]`},
		{"fixed-size-binary-3", &arrow.FixedSizeBinaryType{ByteWidth: 3}, `["YWJj", "ZGVm", "Z2hp"]`,
			`["Z2hp", "YWJj", "YWJj", "AAAA", "ZGVm"]`},
		{"short-strings", arrow.BinaryTypes.String, `["A", "", "RETURN"]`, `["RETURN", "A", "A", "", ""]`},
		{"medium-strings", arrow.BinaryTypes.String, `["x", "DELIVER IN PERSON", "exactly thirty-two bytes long!!!"]`,
			`["exactly thirty-two bytes long!!!", "x", "x", "", "DELIVER IN PERSON"]`},
		{"long-strings", arrow.BinaryTypes.String, `["x", "` + long + `", "DELIVER IN PERSON"]`,
			`["DELIVER IN PERSON", "x", "x", "", "` + long + `"]`},
		{"bool-slot-by-slot", arrow.FixedWidthTypes.Boolean, `[true, false, true]`, `[true, true, true, false, false]`},
	}
	for _, tc := range tests {
		for _, bits := range []int{8, 16, 32, 64} {
			for _, skew := range []int{0, 1} {
				t.Run(tc.name, func(t *testing.T) {
					mem := memtest.NewChecked(t)
					defer mem.AssertSize(t, 0)
					dict := buildFrom(t, mem, tc.typ, tc.dict)
					b, err := encoding.NewBuilder(tc.typ)
					require.NoError(t, err)
					raw := packIndices([]uint64{2, 0, 0, 9, 1}, bits, skew)
					require.NoError(t, b.AppendGather(dict, raw, bits, 4))
					require.NoError(t, b.AppendGather(dict, raw[4*bits/8:], bits, 1))
					requireBuilt(t, mem, b, tc.typ, tc.want)
				})
			}
		}
	}
}

func TestAppendGatherRejects(t *testing.T) {
	dict, err := encoding.NewBuilder(arrow.PrimitiveTypes.Int32)
	require.NoError(t, err)
	b, err := encoding.NewBuilder(arrow.PrimitiveTypes.Int32)
	require.NoError(t, err)
	require.ErrorIs(t, b.AppendGather(dict, []byte{0, 0, 0}, 24, 1), encoding.ErrCorrupt)
	require.ErrorIs(t, b.AppendGather(dict, []byte{0, 0, 0}, 16, 2), encoding.ErrCorrupt)
	require.ErrorIs(t, b.AppendGather(dict, nil, 8, -1), encoding.ErrCorrupt)
	require.Equal(t, 0, b.Len())
}

// buildFrom returns a builder holding the values of the JSON array.
func buildFrom(t *testing.T, mem memory.Allocator, typ arrow.DataType, js string) *encoding.Builder {
	t.Helper()
	arr, _, err := array.FromJSON(mem, typ, strings.NewReader(js))
	require.NoError(t, err)
	defer arr.Release()
	b, err := encoding.NewBuilder(typ)
	require.NoError(t, err)
	d := arr.Data()
	switch typ.ID() {
	case arrow.STRING:
		s := arr.(*array.String)
		offs := make([]uint64, s.Len()+1)
		for i := range s.Len() {
			offs[i+1] = offs[i] + uint64(len(s.Value(i)))
		}
		require.NoError(t, b.AppendVariable(offs, []byte(s.ValueStr(0) + s.ValueStr(1) + s.ValueStr(2))[:offs[3]], 0, s.Len(), nil))
	default:
		require.NoError(t, b.AppendFixed(d.Buffers()[1].Bytes(), 0, arr.Len(), nil))
	}
	return b
}

// requireBuilt finishes b and compares it with the JSON array.
func requireBuilt(t *testing.T, mem memory.Allocator, b *encoding.Builder, typ arrow.DataType, js string) {
	t.Helper()
	got, err := b.FinishArray(mem)
	require.NoError(t, err)
	defer got.Release()
	want, _, err := array.FromJSON(mem, typ, strings.NewReader(js))
	require.NoError(t, err)
	defer want.Release()
	require.True(t, array.Equal(want, got), "want %s\ngot  %s", want, got)
}

// ReserveIn decodes fixed-width values into an allocator buffer that Finish hands over;
// values past the reservation move to Go memory and are copied; Release frees an
// unfinished reservation, so the allocator balances on every path.
func TestReserveIn(t *testing.T) {
	fsl := arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int16)
	tests := []struct {
		name     string
		typ      arrow.DataType
		reserve  int
		values   []byte // little-endian values appended in two halves
		want     string
		finished bool
	}{
		{"fits", arrow.PrimitiveTypes.Int32, 3, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}, `[1, 2, 3]`, true},
		{"overflows", arrow.PrimitiveTypes.Int32, 1, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}, `[1, 2, 3]`, true},
		{"short", arrow.PrimitiveTypes.Int32, 9, []byte{1, 0, 0, 0, 2, 0, 0, 0}, `[1, 2]`, true},
		{"fsl-child", fsl, 2, []byte{1, 0, 2, 0, 3, 0, 4, 0}, `[[1, 2], [3, 4]]`, true},
		{"released-unfinished", arrow.PrimitiveTypes.Int64, 1000, nil, ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			b, err := encoding.NewBuilder(tc.typ)
			require.NoError(t, err)
			defer b.Release()
			b.ReserveIn(mem, tc.reserve)
			if !tc.finished {
				require.Positive(t, mem.CurrentAlloc())
				return
			}
			leaf := b
			if tc.typ.ID() == arrow.FIXED_SIZE_LIST {
				leaf = b.Child(0)
			}
			n := len(tc.values) / (leaf.Bits() / 8)
			half := n / 2
			require.NoError(t, leaf.AppendFixed(tc.values, 0, half, nil))
			require.NoError(t, leaf.AppendFixed(tc.values, half, n, nil))
			if leaf != b {
				require.NoError(t, b.AppendSlots(n/2, nil, 0))
			}
			requireBuilt(t, mem, b, tc.typ, tc.want)
		})
	}
}

// After ReserveIn, variable-width bytes grow in allocator buffers sized from the average
// value so far; Finish hands the last one over (or copies, if values were appended past
// it), and Release frees it when the builder is dropped.
func TestReserveInStrings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reserve int
		finish  bool
	}{
		{"estimate-fits", 40, true},
		{"grows-past-estimate", 2, true},
		{"released-unfinished", 40, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			b, err := encoding.NewBuilder(arrow.BinaryTypes.String)
			require.NoError(t, err)
			defer b.Release()
			b.ReserveIn(mem, tc.reserve)
			var want []string
			for i := range 40 {
				v := strings.Repeat("ab", i%5)
				want = append(want, `"`+v+`"`)
				require.NoError(t, b.AppendVariable([]uint64{0, uint64(len(v))}, []byte(v), 0, 1, nil))
			}
			if !tc.finish {
				require.Positive(t, mem.CurrentAlloc())
				return
			}
			requireBuilt(t, mem, b, arrow.BinaryTypes.String, "["+strings.Join(want, ",")+"]")
		})
	}
}
