package file_test

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/file"
)

// footerBytes builds a 40-byte footer.
func footerBytes(a, b, c uint64, gn, cn uint32, major, minor uint16, magic string) []byte {
	out := make([]byte, 40)
	binary.LittleEndian.PutUint64(out[0:], a)
	binary.LittleEndian.PutUint64(out[8:], b)
	binary.LittleEndian.PutUint64(out[16:], c)
	binary.LittleEndian.PutUint32(out[24:], gn)
	binary.LittleEndian.PutUint32(out[28:], cn)
	binary.LittleEndian.PutUint16(out[32:], major)
	binary.LittleEndian.PutUint16(out[34:], minor)
	copy(out[36:], magic)
	return out
}

func TestParseFooter(t *testing.T) {
	// A 1000-byte file: CMO table [912, 944) (2 columns), GBO [944, 960) (1 buffer), footer
	// [960, 1000).
	const size = 1000
	tests := []struct {
		name    string
		footer  []byte
		version string
		errSub  string
	}{
		{"2.0 as 0.3", footerBytes(800, 912, 944, 1, 2, 0, 3, "LANC"), "2.0", ""},
		{"2.0 as 2.0", footerBytes(800, 912, 944, 1, 2, 2, 0, "LANC"), "2.0", ""},
		{"2.1", footerBytes(800, 912, 944, 1, 2, 2, 1, "LANC"), "2.1", ""},
		{"2.2", footerBytes(800, 912, 944, 1, 2, 2, 2, "LANC"), "2.2", ""},
		{"legacy", footerBytes(800, 912, 944, 1, 2, 0, 2, "LANC"), "", "not supported yet: legacy"},
		{"future", footerBytes(800, 912, 944, 1, 2, 2, 9, "LANC"), "", "not supported yet: file format version 2.9"},
		{"bad magic", footerBytes(800, 912, 944, 1, 2, 2, 1, "LANX"), "", "bad magic"},
		{"out of order", footerBytes(920, 912, 944, 1, 2, 2, 1, "LANC"), "", "out of order"},
		{"past the end", footerBytes(800, 912, 2000, 1, 2, 2, 1, "LANC"), "", "out of order or past"},
		{"column count", footerBytes(800, 912, 944, 1, 3, 2, 1, "LANC"), "", "columns do not fit"},
		{"buffer count", footerBytes(800, 912, 944, 2, 2, 2, 1, "LANC"), "", "global buffers do not fit"},
		{"no schema", footerBytes(800, 912, 960, 0, 3, 2, 1, "LANC"), "", "no global buffers"},
		{"short", []byte("LANC"), "", "footer needs 40 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft, err := file.ParseFooter(tc.footer, size)
			if err == nil {
				var v file.Version
				v, err = ft.Version()
				if err == nil {
					require.Empty(t, tc.errSub)
					require.Equal(t, tc.version, v.String())
					return
				}
			}
			require.ErrorContains(t, err, tc.errSub)
		})
	}
}

func TestParseTable(t *testing.T) {
	b := make([]byte, 32)
	binary.LittleEndian.PutUint64(b[0:], 10)
	binary.LittleEndian.PutUint64(b[8:], 20)
	binary.LittleEndian.PutUint64(b[16:], 90)
	binary.LittleEndian.PutUint64(b[24:], 20)
	got, err := file.ParseTable(b, 2, 200, "test")
	require.NoError(t, err)
	require.Equal(t, []file.Extent{{Pos: 10, Size: 20}, {Pos: 90, Size: 20}}, got)
	_, err = file.ParseTable(b, 2, 100, "test")
	require.ErrorIs(t, err, file.ErrCorruptFile)
	_, err = file.ParseTable(b, 3, 200, "test")
	require.ErrorIs(t, err, file.ErrCorruptFile)
}

// TestOpenCorrupt damages a real file in several ways; Open or the reads must fail with
// ErrCorruptFile, never panic.
func TestOpenCorrupt(t *testing.T) {
	var orig []byte
	for _, c := range generated(t) {
		if c.Name == "main" && c.Version == "2.1" {
			var err error
			orig, err = dirStore{c.Dir}.ReadRange(context.Background(), c.DataFile, 0, fileSize(t, c))
			require.NoError(t, err)
		}
	}
	require.NotEmpty(t, orig)
	n := len(orig)
	tests := []struct {
		name   string
		damage func(b []byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:n-100] }},
		{"tail only", func(b []byte) []byte { return b[n-40:] }},
		{"gbo points past the end", func(b []byte) []byte {
			c := binary.LittleEndian.Uint64(b[n-40+16:])
			binary.LittleEndian.PutUint64(b[c:], uint64(n)+5)
			return b
		}},
		{"schema garbage", func(b []byte) []byte {
			c := binary.LittleEndian.Uint64(b[n-40+16:])
			pos := binary.LittleEndian.Uint64(b[c:])
			for i := 0; i < 8; i++ {
				b[int(pos)+i] = 0xff
			}
			return b
		}},
		{"column metadata garbage", func(b []byte) []byte {
			a := binary.LittleEndian.Uint64(b[n-40:])
			for i := 0; i < 6; i++ {
				b[int(a)+i] = 0xff
			}
			return b
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.damage(append([]byte(nil), orig...))
			_, err := file.Open(context.Background(), memStore{"f": b}, "f")
			require.ErrorIs(t, err, file.ErrCorruptFile)
			require.ErrorContains(t, err, "open lance file f")
		})
	}
}

func fileSize(t *testing.T, c genCase) int64 {
	n, err := dirStore{c.Dir}.Size(context.Background(), c.DataFile)
	require.NoError(t, err)
	return n
}
