package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{5 * ms}, 5 * ms},
		{[]time.Duration{9 * ms, 1 * ms, 5 * ms}, 5 * ms},
		{[]time.Duration{4 * ms, 1 * ms, 2 * ms, 8 * ms}, 3 * ms},
	}
	for _, c := range cases {
		in := append([]time.Duration(nil), c.in...)
		require.Equal(t, c.want, median(c.in))
		require.Equal(t, in, c.in, "median must not reorder its input")
	}
}

func TestClassify(t *testing.T) {
	const wrap = "Flight returned unimplemented error, with message: "
	cases := []struct {
		kind, err, want string
	}{
		{"ArrowNotImplementedError", wrap + "Not implemented Error: not supported yet: joins. gRPC client debug context: X",
			"Not implemented Error: not supported yet: joins"},
		{"ArrowNotImplementedError", wrap + "window functions. gRPC client debug context: X",
			"not supported yet: window functions"},
		{"FlightTimedOutError", "Deadline Exceeded", "timed out after 30s (client deadline)"},
		{"FlightCancelledError", "Stream removed", "timed out after 30s (client deadline)"},
		{"ArrowInvalid", "Flight returned invalid argument error, with message: Parser Error: x\nmore",
			"failed: Parser Error: x"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			require.Equal(t, c.want, classify(peerReply{Kind: c.kind, Error: c.err}, 30*time.Second))
		})
	}
}

func TestTPCHSummary(t *testing.T) {
	ms := time.Millisecond
	got := tpchSummary([]tpchResult{
		{query: "q01", flightd: 20 * ms, duck: 10 * ms, duckPQ: 40 * ms, rows: 4},
		{query: "q02", failure: "not supported yet: x"},
		{query: "q03", flightd: 10 * ms, duck: 20 * ms, duckPQ: 10 * ms, rows: 1},
	})
	lines := strings.Split(strings.TrimSpace(got), "\n")
	require.Len(t, lines, 5)
	require.Contains(t, lines[0], "ratio 2.00 / 0.50")
	require.Equal(t, "q02  not supported yet: x", lines[1])
	require.Equal(t, "geometric mean over the 2 queries flightd ran: 1.00 vs duckdb, 0.71 vs duckdb-parquet", lines[3])
	require.Equal(t, "1 of 3 queries not run by flightd (not supported yet, failed or timed out)", lines[4])
}
