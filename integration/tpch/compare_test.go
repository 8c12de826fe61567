package tpch

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"
)

func TestDecimalString(t *testing.T) {
	cases := []struct {
		v     int64
		scale int32
		want  string
	}{
		{12345, 2, "123.45"},
		{123450, 3, "123.45"},
		{-5, 2, "-0.05"},
		{1200, 2, "12"},
		{1200, 0, "1200"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, decimalString(decimal128.FromI64(c.v), c.scale))
	}
}

func TestCompare(t *testing.T) {
	want := result{Names: []string{"a", "b"}, Rows: [][]string{{"1", "x"}, {"2", "y"}}}
	cases := []struct {
		name    string
		got     result
		err     error
		problem string // a substring of the reported problem; "" means equal
	}{
		{"equal", want, nil, ""},
		{"error", result{}, errors.New("boom"), "error: boom"},
		{"row-count", result{Names: want.Names, Rows: want.Rows[:1]}, nil, "flightd returned 1 rows, DuckDB 2"},
		{"names", result{Names: []string{"a", "c"}, Rows: want.Rows}, nil, "columns [a c]"},
		{"order", result{Names: want.Names, Rows: [][]string{{"2", "y"}, {"1", "x"}}}, nil, "row 0: flightd [2 y], DuckDB [1 x]"},
		{"value", result{Names: want.Names, Rows: [][]string{{"1", "x"}, {"2", "z"}}}, nil, "row 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := compare(c.got, c.err, want)
			if c.problem == "" {
				require.Empty(t, p)
				return
			}
			require.Contains(t, p, c.problem)
		})
	}
}
