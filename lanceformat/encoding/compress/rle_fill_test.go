package compress

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// fillRun writes count copies of the value for every width, typed or not.
func TestFillRun(t *testing.T) {
	tests := []struct {
		width, count int
	}{
		{1, 0}, {1, 7}, {2, 1}, {2, 5}, {3, 4}, {4, 3}, {8, 9}, {16, 1}, {16, 6}, {32, 5},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%dx%d", tc.width, tc.count), func(t *testing.T) {
			v := make([]byte, tc.width)
			for i := range v {
				v[i] = byte(0xA0 + i)
			}
			out := bytes.Repeat([]byte{0xEE}, tc.width*tc.count+3)
			fillRun(out[:tc.width*tc.count], v)
			require.Equal(t, bytes.Repeat(v, tc.count), out[:tc.width*tc.count])
			require.Equal(t, []byte{0xEE, 0xEE, 0xEE}, out[tc.width*tc.count:], "wrote past the run")
		})
	}
}

// DecodeRLEWidth expands runs of several widths and run-length sizes in order.
func TestDecodeRLEWidthRuns(t *testing.T) {
	tests := []struct {
		name    string
		values  []byte
		lengths []byte
		t, bits int
		n       int
		want    []byte
	}{
		{"u8 values", []byte{1, 2, 3}, []byte{2, 1, 3}, 8, 8, 6, []byte{1, 1, 2, 3, 3, 3}},
		{"u16 values", []byte{1, 0, 2, 1}, []byte{1, 2}, 16, 8, 3, []byte{1, 0, 2, 1, 2, 1}},
		{"u32 values, cut", []byte{9, 0, 0, 0, 7, 0, 0, 0}, []byte{2, 5}, 32, 8, 3,
			[]byte{9, 0, 0, 0, 9, 0, 0, 0, 7, 0, 0, 0}},
		{"u64 values, u16 lengths", []byte{5, 0, 0, 0, 0, 0, 0, 1}, []byte{3, 0}, 64, 16, 3,
			bytes.Repeat([]byte{5, 0, 0, 0, 0, 0, 0, 1}, 3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeRLEWidth(tc.values, tc.lengths, tc.t, tc.bits, tc.n)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
