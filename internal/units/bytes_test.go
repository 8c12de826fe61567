package units_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/units"
)

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		3 << 20: "3.0 MiB", 5 << 30: "5.0 GiB", 7 << 50: "7.0 PiB"} {
		require.Equal(t, want, units.FormatBytes(n))
	}
}
