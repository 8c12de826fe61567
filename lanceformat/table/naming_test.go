package table_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/table"
)

func TestParseManifestName(t *testing.T) {
	cases := []struct {
		name    string
		version uint64
		scheme  table.NamingScheme
		ok      bool
	}{
		{"1.manifest", 1, table.NamingV1, true},
		{"_versions/42.manifest", 42, table.NamingV1, true},
		{"18446744073709551614.manifest", 1, table.NamingV2, true},
		{"18446744073709551613.manifest", 2, table.NamingV2, true},
		{"18446744073709551615.manifest", 0, table.NamingV2, true},
		{"00000000000000000009.manifest", math.MaxUint64 - 9, table.NamingV2, true},
		{"d9223372036854775809.manifest", 0, 0, false},
		{"3.manifest-6f1c2d7e-0000-4000-8000-000000000000", 0, 0, false},
		{"3.manifest#1", 0, 0, false},
		{"latest_version_hint.json", 0, 0, false},
		{"_latest.manifest", 0, 0, false},
		{".manifest", 0, 0, false},
		{"x1.manifest", 0, 0, false},
		{"-1.manifest", 0, 0, false},
		{"99999999999999999999.manifest", 0, 0, false}, // overflows u64
		{".tmp_1.manifest", 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, s, ok := table.ParseManifestName(c.name)
			require.Equal(t, c.ok, ok)
			require.Equal(t, c.version, v)
			require.Equal(t, c.scheme, s)
		})
	}
}

func TestManifestNameRoundTrip(t *testing.T) {
	for _, v := range []uint64{1, 2, 9, 10, 12345, math.MaxUint64 / 2, math.MaxUint64 - 1} {
		for _, s := range []table.NamingScheme{table.NamingV1, table.NamingV2} {
			name := table.ManifestName(s, v)
			if s == table.NamingV2 {
				require.Len(t, name, 29, name)
			}
			got, gs, ok := table.ParseManifestName(name)
			if s == table.NamingV1 && len(name) == 29 {
				continue // a 20-digit V1 name is indistinguishable from V2 (Lance has the same rule)
			}
			require.True(t, ok, name)
			require.Equal(t, v, got, name)
			require.Equal(t, s, gs, name)
		}
	}
	require.Equal(t, "18446744073709551614.manifest", table.ManifestName(table.NamingV2, 1))
	require.Equal(t, "7.manifest", table.ManifestName(table.NamingV1, 7))
	require.Equal(t, "V2", table.NamingV2.String())
}
