package compress

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
)

func TestGeneralRoundTrip(t *testing.T) {
	inputs := [][]byte{
		{},
		[]byte("a"),
		bytes.Repeat([]byte("lance flight "), 5000),
		randWords(newRand(), 3000, 64, 64),
	}
	for _, scheme := range []Scheme{SchemeZstd, SchemeLZ4} {
		for _, in := range inputs {
			enc, err := Compress(scheme, 0, in)
			require.NoError(t, err)
			switch scheme {
			case SchemeZstd:
				require.Equal(t, uint64(len(in)), binary.LittleEndian.Uint64(enc))
			case SchemeLZ4:
				require.Equal(t, uint32(len(in)), binary.LittleEndian.Uint32(enc))
			}
			got, err := Decompress(scheme, enc, 0)
			require.NoError(t, err)
			require.Len(t, got, len(in))
			require.True(t, bytes.Equal(in, got), "%v len %d", scheme, len(in))
		}
	}
}

func TestZstdBareFrame(t *testing.T) {
	in := bytes.Repeat([]byte("old writers used bare frames "), 100)
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	frame := enc.EncodeAll(in, nil)
	require.NoError(t, enc.Close())
	require.True(t, isRawZstd(frame))
	got, err := Decompress(SchemeZstd, frame, 0)
	require.NoError(t, err)
	require.Equal(t, in, got)
	// The limit applies to bare frames too.
	_, err = Decompress(SchemeZstd, frame, 100)
	require.ErrorIs(t, err, ErrCorrupt)
}

func TestGeneralCorrupt(t *testing.T) {
	good, err := Compress(SchemeZstd, 3, bytes.Repeat([]byte("x"), 10000))
	require.NoError(t, err)
	lz, err := Compress(SchemeLZ4, 0, bytes.Repeat([]byte("y"), 10000))
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		scheme Scheme
		src    []byte
		limit  int
	}{
		{"zstd over limit", SchemeZstd, good, 9999},
		{"zstd huge declared size", SchemeZstd, append(binary.LittleEndian.AppendUint64(nil, 1<<40), good[8:]...), 0},
		{"zstd wrong declared size", SchemeZstd, append(binary.LittleEndian.AppendUint64(nil, 10001), good[8:]...), 0},
		{"zstd garbage", SchemeZstd, append(binary.LittleEndian.AppendUint64(nil, 10), 1, 2, 3, 4, 5), 0},
		{"lz4 short", SchemeLZ4, []byte{1, 0}, 0},
		{"lz4 over limit", SchemeLZ4, lz, 100},
		{"lz4 garbage", SchemeLZ4, []byte{10, 0, 0, 0, 0xF0, 1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decompress(tc.scheme, tc.src, tc.limit)
			require.ErrorIs(t, err, ErrCorrupt)
		})
	}
	_, err = Decompress(Scheme(7), good, 0)
	require.ErrorIs(t, err, ErrUnsupported)
	require.Contains(t, err.Error(), "not supported yet")
	s, err := ParseScheme("lz4")
	require.NoError(t, err)
	require.Equal(t, SchemeLZ4, s)
	_, err = ParseScheme("brotli")
	require.ErrorIs(t, err, ErrUnsupported)
}
