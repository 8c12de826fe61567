package decfloat

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"
)

// TestToFloat64: small decimals give the nearest double; wide ones round the integer first.
func TestToFloat64(t *testing.T) {
	big, err := decimal128.FromString("987654321098765432.1", 38, 1)
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		n     decimal128.Num
		scale int32
		want  float64
	}{
		{"0.3", decimal128.FromI64(3), 1, 0.3},
		{"-0.3", decimal128.FromI64(-3), 1, -0.3},
		{"0.07", decimal128.FromI64(7), 2, 0.07},
		{"integer", decimal128.FromI64(-42), 0, -42},
		{"int64 min", decimal128.FromI64(math.MinInt64), 0, -9223372036854775808},
		{"beyond int64", decimal128.FromU64(math.MaxUint64), 0, 18446744073709551615},
		{"negative beyond int64", decimal128.FromU64(math.MaxUint64).Negate(), 0, -18446744073709551615},
		{"wide", big, 1, 9876543210987654321.0 / 10},
		{"scale 38", decimal128.FromI64(1), 38, 1e-38},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, ToFloat64(c.n, c.scale))
		})
	}
}
