package legacy_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/file/legacy"
)

// FuzzDecodeTail feeds arbitrary file tails to the v1 footer, metadata and embedded-manifest
// decoders: they must return errors, never panic, and accepted metadata must be consistent.
func FuzzDecodeTail(f *testing.F) {
	f.Add([]byte{9, 0, 0, 0, 0x08, 0x80, 0x01, 0x12, 0x02, 0x00, 0x03, 0x18, 0x18}, uint64(178))
	f.Add(append([]byte{9, 0, 0, 0, 0x08, 0x80, 0x01, 0x12, 0x02, 0x00, 0x03, 0x18, 0x18},
		v1Footer(0, 0, 2, "LANC")...), uint64(29))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x12, 0xff, 0xff}, uint64(1))
	f.Fuzz(func(t *testing.T, b []byte, size uint64) {
		if pos, err := legacy.ParseFooter(b, size); err == nil {
			require.LessOrEqual(t, pos, size-legacy.FooterSize)
		}
		if m, err := legacy.ParseMetadata(b); err == nil {
			require.GreaterOrEqual(t, m.NumBatches(), 0)
			for i := 1; i < len(m.BatchOffsets); i++ {
				require.LessOrEqual(t, m.BatchOffsets[i-1], m.BatchOffsets[i])
			}
		}
		_, _ = legacy.ParseManifestDictionaries(b)
	})
}
