package encoding

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
)

func TestOffsetsClass(t *testing.T) {
	tests := []struct {
		n, want int
	}{
		{0, -1}, {minPooledOffsets - 1, -1}, {minPooledOffsets, 10}, {minPooledOffsets + 1, 11},
		{1 << 16, 16}, {1<<16 + 1, 17}, {1 << maxPooledClass, maxPooledClass}, {1<<maxPooledClass + 1, -1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			require.Equal(t, tc.want, offsetsClass(tc.n))
		})
	}
}

func TestGetOffsetsKeepsContents(t *testing.T) {
	tests := []struct {
		name       string
		have, add  int
		wantPooled bool
	}{
		{"small stays unpooled", 3, 10, false},
		{"large is pooled", 3, 5000, true},
		{"grow pooled", 3000, 70000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			offs := make([]int64, tc.have)
			for i := range offs {
				offs[i] = int64(7 * i)
			}
			got, pooled := getOffsets(offs, tc.add)
			require.Equal(t, tc.wantPooled, pooled)
			require.Equal(t, offs, got)
			require.GreaterOrEqual(t, cap(got)-len(got), tc.add)
			if pooled {
				putOffsets(got)
			}
		})
	}
}

// TestPooledOffsetsReuse builds string arrays one after another through reserved
// builders, so the later ones get the earlier ones' (dirty) offsets slices back from the
// pools, and checks every array's values.
func TestPooledOffsetsReuse(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	tests := []struct {
		name string
		rows int
		seed byte
	}{
		{"first", 5000, 'a'},
		{"reuses the slice", 4000, 'k'},
		{"bigger", 9000, 'p'},
		{"smaller again", 1500, 'x'},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBuilder(arrow.BinaryTypes.String)
			require.NoError(t, err)
			defer b.Release()
			b.ReserveIn(mem, tc.rows)
			require.True(t, b.pooledOffs)
			want := make([]string, tc.rows)
			for i := range want {
				want[i] = string(make([]byte, i%5)) + string(tc.seed+byte(i%7))
				require.NoError(t, b.AppendValue([]byte(want[i]), true))
			}
			arr, err := b.FinishArray(mem)
			require.NoError(t, err)
			defer arr.Release()
			s := arr.(*array.String)
			require.Equal(t, tc.rows, s.Len())
			for i, w := range want {
				require.Equal(t, w, s.Value(i), "row %d", i)
			}
		})
	}
}
