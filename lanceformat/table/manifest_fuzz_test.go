package table_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/table"
)

func FuzzDecodeManifest(f *testing.F) {
	good, err := table.EncodeManifest(sampleManifest(3))
	require.NoError(f, err)
	f.Add(good)
	f.Add([]byte("LANC"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := table.DecodeManifest("fuzz.manifest", data)
		if err != nil {
			require.ErrorIs(t, err, table.ErrCorruptManifest)
			return
		}
		_ = m.Timestamp()
		_ = m.DataFormatVersion()
		// Whatever decodes must survive a re-encode unchanged (sections aside).
		again, err := table.EncodeManifest(m.Proto)
		require.NoError(t, err)
		m2, err := table.DecodeManifest("again", again)
		require.NoError(t, err)
		p := m.Proto
		p2 := m2.Proto
		p2.IndexSection, p2.TransactionSection = p.IndexSection, p.TransactionSection
		require.True(t, proto.Equal(p, p2))
	})
}
