package main

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDataCacheBytesFlag(t *testing.T) {
	f, err := parseServeFlags(nil, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "1GiB", f.dataCacheBytes)

	t.Setenv("FLIGHTD_DATA_CACHE_BYTES", "-1")
	f, err = parseServeFlags(nil, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "-1", f.dataCacheBytes)

	root := t.TempDir()
	for _, tc := range []struct {
		value string
		err   string
	}{
		{"1GiB", ""},
		{"0", ""},
		{"-1", ""},
		{"512MiB", ""},
		{"lots", `--data-cache-bytes: invalid size "lots"`},
		{"-2", `--data-cache-bytes: invalid size "-2"`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			f, err := parseServeFlags([]string{"--root", root, "--data-cache-bytes", tc.value}, io.Discard)
			require.NoError(t, err)
			_, err = f.serverConfig(context.Background())
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.EqualError(t, err, tc.err)
			}
		})
	}
}
