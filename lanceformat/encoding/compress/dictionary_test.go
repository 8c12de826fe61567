package compress

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGatherVariable(t *testing.T) {
	dictBlk, err := EncodeVariableBlock(strs("red", "green", ""), 32)
	require.NoError(t, err)
	dOffs, dData, err := DecodeVariableBlock(dictBlk, 3)
	require.NoError(t, err)
	idx := u32s(1, 0, 2, 1, 99)
	// Position 4 is null (validity bit 4 clear), so its index is not checked.
	validity := []byte{0b01111}
	offs, data, err := GatherVariable(idx, 32, 5, dOffs, dData, validity)
	require.NoError(t, err)
	require.Equal(t, strs("green", "red", "", "green", ""), split(offs, data))
	_, _, err = GatherVariable(idx, 32, 5, dOffs, dData, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	// 8-bit keys.
	offs, data, err = GatherVariable([]byte{2, 2, 0}, 8, 3, dOffs, dData, nil)
	require.NoError(t, err)
	require.Equal(t, strs("", "", "red"), split(offs, data))
}

func TestGatherFixed(t *testing.T) {
	dict := []byte{0xA0, 0xA1, 0xB0, 0xB1} // two 2-byte values
	got, err := GatherFixed(u16s(1, 0, 1, 7), 16, 4, dict, 2, []byte{0b0111})
	require.NoError(t, err)
	require.Equal(t, []byte{0xB0, 0xB1, 0xA0, 0xA1, 0xB0, 0xB1, 0, 0}, got)
	for _, tc := range []struct {
		name string
		fn   func() error
	}{
		{"out of range", func() error { _, err := GatherFixed(u16s(2), 16, 1, dict, 2, nil); return err }},
		{"negative i32", func() error { _, err := GatherFixed(u32s(0xFFFFFFFF), 32, 1, dict, 2, nil); return err }},
		{"short indices", func() error { _, err := GatherFixed(u16s(0), 16, 2, dict, 2, nil); return err }},
		{"short validity", func() error { _, err := GatherFixed(make([]byte, 18), 16, 9, dict, 2, []byte{0xFF}); return err }},
		{"bad index width", func() error { _, err := GatherFixed(u16s(0), 12, 1, dict, 2, nil); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.fn(), ErrCorrupt)
		})
	}
}
