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
