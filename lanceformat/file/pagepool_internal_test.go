package file

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPageBufferClasses(t *testing.T) {
	tests := []struct {
		n, class int
	}{
		{0, -1}, {1, -1}, {minPooledRead - 1, -1},
		{minPooledRead, 0}, {4096, 0}, {4097, 1}, {8192, 1}, {1 << 20, 8}, {1<<20 + 1, 9},
		{1 << maxClassShift, numClasses - 1}, {1<<maxClassShift + 1, -1},
	}
	for _, tc := range tests {
		require.Equal(t, tc.class, classOf(tc.n), "classOf(%d)", tc.n)
	}
}

func TestPageBuffers(t *testing.T) {
	defer SetPoisonPageBuffers(SetPoisonPageBuffers(false))
	for _, n := range []int{0, 100, minPooledRead, 5000, 3 << 20} {
		b, h := getPage(n)
		require.Len(t, b, n)
		require.NotNil(t, h)
		if c := classOf(n); c >= 0 {
			require.Equal(t, 1<<(c+minClassShift), cap(b), "pooled buffers have their class's size")
		}
		for i := range b {
			b[i] = byte(i)
		}
		putPage(h)
	}

	SetPoisonPageBuffers(true)
	_, h0 := getPage(0)
	putPage(h0) // nothing to poison
	b, h := getPage(6000)
	for i := range b {
		b[i] = 1
	}
	putPage(h)
	full := b[:cap(b)]
	for i, v := range full {
		require.Equal(t, poisonByte, v, "byte %d of a returned buffer", i)
	}
}
