package compress

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

func testTable(t *testing.T) *FSSTTable {
	t.Helper()
	return &FSSTTable{EncoderSwitch: true, SuffixLim: 1, Terminator: 0, Symbols: strs("th", "e ", "hello", "abcdefgh", "x")}
}

func TestFSSTTableLayout(t *testing.T) {
	tab := testTable(t)
	blob, err := tab.Marshal()
	require.NoError(t, err)
	require.Len(t, blob, 2312)
	hdr := binary.LittleEndian.Uint64(blob)
	require.Equal(t, uint64(0x46535354_01_01_00_05), hdr)
	require.Equal(t, []byte("th"), blob[8:10])
	require.Equal(t, []byte("abcdefgh"), blob[8+24:8+32])
	// lengths start at 8+8n = 48, not at 2056
	require.Equal(t, []byte{2, 2, 5, 8, 1}, blob[48:53])
	got, err := ParseFSSTSymbolTable(blob)
	require.NoError(t, err)
	require.Equal(t, tab.EncoderSwitch, got.EncoderSwitch)
	require.Equal(t, tab.SuffixLim, got.SuffixLim)
	require.Equal(t, tab.Terminator, got.Terminator)
	require.Equal(t, tab.Symbols, got.Symbols)
	require.NotNil(t, got.fast, "a parsed table carries its bulk-decode table")
}

func TestFSSTDecompressKnownAnswer(t *testing.T) {
	tab := testTable(t)
	// codes: "hello" (2), escape 'Q', "th" (0), "e " (1), "x" (4)
	got, err := tab.Decompress(nil, []byte{2, 255, 'Q', 0, 1, 4})
	require.NoError(t, err)
	require.Equal(t, "helloQthe x", string(got))
}

func TestFSSTRoundTrip(t *testing.T) {
	tab := testTable(t)
	in := strs("", "the hello", "abcdefghabcdefgh!", "zzz\xff\x00", "x")
	var data []byte
	offs := []uint64{0}
	for _, s := range in {
		data = tab.Compress(data, s)
		offs = append(offs, uint64(len(data)))
	}
	require.Less(t, len(data), 40)
	o, d, err := DecodeFSSTStrings(tab, offs, data)
	require.NoError(t, err)
	require.Equal(t, normalize(in), split(o, d))
	// Switch off: bytes pass through unchanged.
	off := &FSSTTable{Symbols: tab.Symbols}
	o, d, err = DecodeFSSTStrings(off, []uint64{0, 3}, []byte("abc"))
	require.NoError(t, err)
	require.Equal(t, []uint64{0, 3}, o)
	require.Equal(t, "abc", string(d))
}

func TestFSSTCorrupt(t *testing.T) {
	tab := testTable(t)
	blob, err := tab.Marshal()
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		fn   func() error
	}{
		{"short table", func() error { _, err := ParseFSSTSymbolTable(blob[:100]); return err }},
		{"bad magic", func() error {
			b := append([]byte{}, blob...)
			b[7] = 0
			_, err := ParseFSSTSymbolTable(b)
			return err
		}},
		{"zero symbol length", func() error {
			b := append([]byte{}, blob...)
			b[48] = 0
			_, err := ParseFSSTSymbolTable(b)
			return err
		}},
		{"symbol length 9", func() error {
			b := append([]byte{}, blob...)
			b[48] = 9
			_, err := ParseFSSTSymbolTable(b)
			return err
		}},
		{"unknown code", func() error { _, err := tab.Decompress(nil, []byte{7}); return err }},
		{"trailing escape", func() error { _, err := tab.Decompress(nil, []byte{0, 255}); return err }},
		{"offsets past end", func() error { _, _, err := DecodeFSSTStrings(tab, []uint64{0, 5}, []byte{0}); return err }},
		{"offsets backwards", func() error { _, _, err := DecodeFSSTStrings(tab, []uint64{1, 0}, []byte{0}); return err }},
		{"no offsets", func() error { _, _, err := DecodeFSSTStrings(tab, nil, nil); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.fn(), ErrCorrupt)
		})
	}
}

func TestFSSTBuildTable(t *testing.T) {
	var in [][]byte
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	total := 0
	for i := range 3000 {
		s := []byte(words[i%5] + " " + words[(i*7)%5] + " " + words[(i*3)%5] + "\xff")
		in = append(in, s)
		total += len(s)
	}
	in = append(in, []byte{}, []byte{0, 1, 2, 255})
	tab := BuildFSSTTable(in)
	require.True(t, tab.EncoderSwitch)
	require.NotEmpty(t, tab.Symbols)
	require.LessOrEqual(t, len(tab.Symbols), 255)
	for _, s := range tab.Symbols {
		require.True(t, len(s) >= 1 && len(s) <= 8)
	}
	offs, data := tab.CompressAll(in)
	require.Less(t, len(data), total/2, "repetitive text should compress at least 2x")
	blob, err := tab.Marshal()
	require.NoError(t, err)
	parsed, err := ParseFSSTSymbolTable(blob)
	require.NoError(t, err)
	o, d, err := DecodeFSSTStrings(parsed, offs, data)
	require.NoError(t, err)
	require.Equal(t, normalize(in), split(o, d))
	// An empty input builds an empty (but valid) table.
	empty := BuildFSSTTable(nil)
	require.Empty(t, empty.Symbols)
	require.Equal(t, []byte{255, 'a'}, empty.Compress(nil, []byte("a")))
}
