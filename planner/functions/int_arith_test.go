package functions_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/functions"
)

func TestIntArith(t *testing.T) {
	cases := []struct {
		fn   string
		vals []int64
		want int64
		ok   bool
	}{
		{"add", []int64{1, 10}, 11, true},
		{"add", []int64{math.MaxInt64, 1}, 0, false},
		{"subtract", []int64{math.MinInt64, 1}, 0, false},
		{"subtract", []int64{-5, 7}, -12, true},
		{"multiply", []int64{-3, 4}, -12, true},
		{"multiply", []int64{math.MinInt64, 0}, 0, true},
		{"multiply", []int64{math.MinInt64, 1}, 0, false},
		{"multiply", []int64{1 << 32, 1 << 31}, 0, false},
		{"negate", []int64{7}, -7, true},
		{"negate", []int64{math.MinInt64}, 0, false},
		{"divide", []int64{4, 2}, 0, false},
		{"add", []int64{1}, 0, false},
	}
	for _, c := range cases {
		got, ok := functions.IntArith(c.fn, c.vals)
		require.Equal(t, c.ok, ok, "%s%v", c.fn, c.vals)
		if ok {
			require.Equal(t, c.want, got, "%s%v", c.fn, c.vals)
		}
	}
}
