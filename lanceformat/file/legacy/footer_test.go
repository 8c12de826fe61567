package legacy_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/file/legacy"
)

func v1Footer(pos uint64, major, minor uint16, magic string) []byte {
	b := binary.LittleEndian.AppendUint64(nil, pos)
	b = binary.LittleEndian.AppendUint16(b, major)
	b = binary.LittleEndian.AppendUint16(b, minor)
	return append(b, magic...)
}

func TestParseFooter(t *testing.T) {
	cases := []struct {
		name    string
		tail    []byte
		size    uint64
		want    uint64
		wantErr string
	}{
		{"0.2", v1Footer(178, 0, 2, "LANC"), 318, 178, ""},
		{"0.1", v1Footer(0, 0, 1, "LANC"), 16, 0, ""},
		{"short", []byte("LANC"), 4, 0, "footer needs 16 bytes"},
		{"magic", v1Footer(1, 0, 2, "LANX"), 100, 0, "bad magic"},
		{"v2", v1Footer(1, 0, 3, "LANC"), 100, 0, "version 0.3 is not a legacy v1 file"},
		{"past", v1Footer(85, 0, 2, "LANC"), 100, 0, "metadata position 85 past the footer (84)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := legacy.ParseFooter(c.tail, c.size)
			if c.wantErr != "" {
				require.ErrorIs(t, err, legacy.ErrCorruptFile)
				require.ErrorContains(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestParseMetadata(t *testing.T) {
	cases := []struct {
		name    string
		b       []byte
		want    legacy.Metadata
		wantErr string
	}{
		// From v0.15.0/v1_with_files: manifest at 128, batches [0, 3), page table at 24,
		// statistics (field 5, skipped).
		{"fixture", []byte{9, 0, 0, 0, 0x08, 0x80, 0x01, 0x12, 0x02, 0x00, 0x03, 0x18, 0x18},
			legacy.Metadata{ManifestPosition: 128, BatchOffsets: []int32{0, 3}, PageTablePosition: 24}, ""},
		{"unpacked offsets and unknown field", []byte{7, 0, 0, 0, 0x10, 0x00, 0x10, 0x05, 0x2a, 0x01, 0x00},
			legacy.Metadata{BatchOffsets: []int32{0, 5}}, ""},
		{"empty", []byte{0, 0, 0, 0}, legacy.Metadata{}, ""},
		{"length past block", []byte{9, 0, 0, 0, 0x08}, legacy.Metadata{}, "exceeds"},
		{"truncated varint", []byte{2, 0, 0, 0, 0x08, 0x80}, legacy.Metadata{}, "metadata"},
		{"offsets not from 0", []byte{4, 0, 0, 0, 0x12, 0x02, 0x01, 0x03}, legacy.Metadata{}, "do not start at 0"},
		{"descending offsets", []byte{5, 0, 0, 0, 0x12, 0x03, 0x00, 0x05, 0x02}, legacy.Metadata{}, "ascend"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := legacy.ParseMetadata(c.b)
			if c.wantErr != "" {
				require.ErrorIs(t, err, legacy.ErrCorruptFile)
				require.ErrorContains(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
			require.Equal(t, max(len(c.want.BatchOffsets)-1, 0), got.NumBatches())
		})
	}
}

// TestV2FooterParserClassifiesV1Files checks that file.ParseFooter looks at the version
// before the offsets: every v1 file of the shared fixtures is reported as a legacy file
// (not supported by that reader), never as corrupt.
func TestV2FooterParserClassifiesV1Files(t *testing.T) {
	root := testutil.SharedFixtures(t)
	paths, err := filepath.Glob(filepath.Join(root, "*", "*", "data", "*.lance"))
	require.NoError(t, err)
	var v1 int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		if len(b) < 40 || string(b[len(b)-4:]) != "LANC" {
			continue
		}
		if _, err := legacy.ParseFooter(b, uint64(len(b))); err != nil {
			continue // a v2 file
		}
		v1++
		_, err = file.ParseFooter(b, uint64(len(b)))
		require.ErrorIs(t, err, file.ErrLegacyFile, p)
		require.ErrorIs(t, err, file.ErrNotSupported, p)
		require.False(t, errors.Is(err, file.ErrCorruptFile), p)
		require.ErrorContains(t, err, "not supported yet: legacy (v1) Lance files")
	}
	require.GreaterOrEqual(t, v1, 20)
}
