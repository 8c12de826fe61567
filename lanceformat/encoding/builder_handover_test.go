package encoding_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
)

// TestFinishAfterReserveInKeepsValues covers the hand-over of ReserveIn's buffers when the
// values outgrew the reserved size but not the buffer's capacity (Arrow rounds it up to
// 64 bytes) or moved out of it: Finish once released the buffer before copying the values
// out of it, which the plain Go allocator hides and a reusing allocator turns into zeros.
// The poisoning allocator makes that read 0xDB.
func TestFinishAfterReserveInKeepsValues(t *testing.T) {
	long := func(c byte, n int) string { return strings.Repeat(string(c), n) }
	int64s := func(vs ...int64) []byte {
		out := make([]byte, 8*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint64(out[8*i:], uint64(v))
		}
		return out
	}
	tests := []struct {
		name    string
		typ     arrow.DataType
		reserve int
		build   func(t *testing.T, b *encoding.Builder)
		want    string
	}{
		{"strings past the reserved size, within capacity", arrow.BinaryTypes.String, 4,
			func(t *testing.T, b *encoding.Builder) {
				// 10 bytes for 1 of 4 slots: growData sizes the buffer 42 bytes (64 allocated).
				require.NoError(t, b.AppendVariable([]uint64{0, 10}, []byte("0123456789"), 0, 1, nil))
				require.NoError(t, b.AppendValue([]byte(long('a', 20)), true))
				require.NoError(t, b.AppendValue([]byte(long('b', 20)), true)) // 50 bytes > 42
			}, `["0123456789" "` + long('a', 20) + `" "` + long('b', 20) + `"]`},
		{"strings that outgrew the buffer", arrow.BinaryTypes.LargeString, 2,
			func(t *testing.T, b *encoding.Builder) {
				require.NoError(t, b.AppendVariable([]uint64{0, 3}, []byte("abc"), 0, 1, nil))
				require.NoError(t, b.AppendValue([]byte(long('c', 100)), true)) // append moves the bytes
			}, `["abc" "` + long('c', 100) + `"]`},
		{"fixed values past the reserved size, within capacity", arrow.PrimitiveTypes.Int64, 4,
			func(t *testing.T, b *encoding.Builder) {
				require.NoError(t, b.AppendFixed(int64s(1, 2, 3, 4, 5, 6), 0, 6, nil)) // 48 bytes > 32
			}, `[1 2 3 4 5 6]`},
		{"fixed values that outgrew the buffer", arrow.PrimitiveTypes.Int64, 2,
			func(t *testing.T, b *encoding.Builder) {
				require.NoError(t, b.AppendFixed(int64s(7, 8, 9, 10, 11, 12, 13, 14, 15, 16), 0, 10, nil))
			}, `[7 8 9 10 11 12 13 14 15 16]`},
		{"values within the reservation", arrow.BinaryTypes.String, 2,
			func(t *testing.T, b *encoding.Builder) {
				require.NoError(t, b.AppendVariable([]uint64{0, 1, 3}, []byte("xyz"), 0, 2, nil))
			}, `["x" "yz"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			b, err := encoding.NewBuilder(tc.typ)
			require.NoError(t, err)
			defer b.Release()
			b.ReserveIn(mem, tc.reserve)
			tc.build(t, b)
			arr, err := b.FinishArray(mem)
			require.NoError(t, err)
			defer arr.Release()
			require.Equal(t, tc.want, arr.String())
		})
	}
}
