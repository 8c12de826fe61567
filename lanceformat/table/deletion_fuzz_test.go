package table_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/table"
)

const fuzzLimit = 1 << 20

func requireSortedBelow(t *testing.T, vals []uint32, limit uint64) {
	for i, v := range vals {
		require.Less(t, uint64(v), limit)
		if i > 0 {
			require.Less(t, vals[i-1], v)
		}
	}
}

func FuzzDecodeRoaring(f *testing.F) {
	f.Add(table.EncodeRoaring([]uint32{1, 2, 3, 70000}))
	f.Add(table.EncodeRoaring(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, err := table.DecodeRoaring(data, fuzzLimit)
		if err != nil {
			return
		}
		requireSortedBelow(t, vals, fuzzLimit)
		again, err := table.DecodeRoaring(table.EncodeRoaring(vals), fuzzLimit)
		require.NoError(t, err)
		require.Len(t, again, len(vals))
		if len(vals) > 0 {
			require.Equal(t, vals, again)
		}
	})
}

func FuzzDecodeDeletionArrow(f *testing.F) {
	mem := memory.NewGoAllocator()
	f.Add(writeDeletionIPC(f, mem, arrow.PrimitiveTypes.Uint32, []int64{3, 1, 2}))
	f.Add(writeDeletionIPC(f, mem, arrow.PrimitiveTypes.Uint32, []int64{9, 8}, ipc.WithZstd()))
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, err := table.DecodeDeletionArrow(data, fuzzLimit)
		if err != nil {
			return
		}
		requireSortedBelow(t, vals, fuzzLimit)
	})
}

func FuzzDecodeRowIDs(f *testing.F) {
	f.Add([]byte{0x0a, 0x04, 0x0a, 0x02, 0x10, 0x0a}) // one Range{0, 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		ids, err := table.DecodeRowIDs(data, 10)
		if err != nil {
			require.ErrorIs(t, err, table.ErrCorruptFile)
			return
		}
		require.Len(t, ids, 10)
	})
}
