package main

import (
	"io"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestApplyGCPercent(t *testing.T) {
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })

	t.Setenv("GOGC", "")
	applyGCPercent(250)
	require.Equal(t, 250, debug.SetGCPercent(100), "without GOGC the flag sets the target")

	t.Setenv("GOGC", "150")
	applyGCPercent(250)
	require.Equal(t, 100, debug.SetGCPercent(100), "GOGC in the environment wins over the flag")
}

func TestGCPercentFlag(t *testing.T) {
	f, err := parseServeFlags(nil, io.Discard)
	require.NoError(t, err)
	require.Equal(t, defaultGCPercent, f.gcPercent)

	t.Setenv("FLIGHTD_GC_PERCENT", "800")
	f, err = parseServeFlags(nil, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 800, f.gcPercent)
}

func TestApplyMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })

	t.Setenv("GOMEMLIMIT", "")
	applyMemoryLimit(1 << 30)
	require.Equal(t, int64(1<<30+memoryHeadroom), debug.SetMemoryLimit(-1), "the caches plus the headroom")

	debug.SetMemoryLimit(5 << 30)
	t.Setenv("GOMEMLIMIT", "8GiB")
	applyMemoryLimit(1 << 30)
	require.Equal(t, int64(5<<30), debug.SetMemoryLimit(-1), "GOMEMLIMIT in the environment wins")
}

func TestCachesBudget(t *testing.T) {
	tests := []struct {
		meta, data string
		want       int64
	}{
		{"256MiB", "1GiB", 256<<20 + 1<<30},
		{"0", "0", 256<<20 + 1<<30},
		{"-1", "-1", 0},
		{"64MiB", "-1", 64 << 20},
	}
	for _, tc := range tests {
		f := serveFlags{cacheBytes: tc.meta, dataCacheBytes: tc.data}
		o, err := f.cacheOptions()
		require.NoError(t, err)
		require.Equal(t, tc.want, cachesBudget(o), "%s %s", tc.meta, tc.data)
	}
}
