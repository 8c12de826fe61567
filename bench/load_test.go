package bench

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPercentile(t *testing.T) {
	ms := time.Millisecond
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * ms
	}
	cases := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", []time.Duration{7 * ms}, 0.99, 7 * ms},
		{"p50 of 1..100", hundred, 0.5, 50 * ms},
		{"p99 of 1..100", hundred, 0.99, 99 * ms},
		{"p100 of 1..100", hundred, 1, 100 * ms},
		{"p50 of three", []time.Duration{1 * ms, 2 * ms, 9 * ms}, 0.5, 2 * ms},
		{"p99 of three", []time.Duration{1 * ms, 2 * ms, 9 * ms}, 0.99, 9 * ms},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, percentile(c.sorted, c.p))
		})
	}
}

func TestLoadRunRecordAndFailure(t *testing.T) {
	mix := []loadQuery{{kind: "point"}, {kind: "join"}}
	ok := func() *loadRun {
		r := newLoadRun(mix)
		r.record("point", 2*time.Millisecond, nil, 1, 1, "SELECT 1")
		r.record("join", 4*time.Millisecond, nil, 10, 10, "SELECT\n  2")
		r.elapsed = time.Second
		return r
	}
	base := procState{goroutines: 10, heap: 100 << 20}
	cases := []struct {
		name        string
		run         func() *loadRun
		after       procState
		serverArrow int
		want        []string // substrings of the failure; none means it passes
	}{
		{"clean", ok, procState{goroutines: 12, heap: 120 << 20}, 0, nil},
		{"query error", func() *loadRun {
			r := ok()
			r.record("point", time.Millisecond, errors.New("boom"), 0, 1, "SELECT\n 3")
			return r
		}, base, 0, []string{"1 queries failed", "SELECT 3: boom"}},
		{"wrong rows", func() *loadRun {
			r := ok()
			r.record("join", time.Millisecond, nil, 9, 10, "SELECT 4")
			return r
		}, base, 0, []string{"SELECT 4: 9 rows, want 10"}},
		{"goroutine leak", ok, procState{goroutines: 15, heap: 100 << 20}, 0, []string{"goroutines 15 after the run, baseline 10"}},
		{"heap growth", ok, procState{goroutines: 10, heap: 151 << 20}, 0, []string{"heap 151.0 MiB after the run"}},
		{"arrow memory", ok, base, 64, []string{"server holds 64 bytes"}},
		{"nothing ran", func() *loadRun { return newLoadRun(mix) }, base, 0, []string{"no query completed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.run()
			got := r.failure(base, c.after, c.serverArrow)
			if c.want == nil {
				require.Empty(t, got)
				return
			}
			for _, w := range c.want {
				require.Contains(t, got, w)
			}
		})
	}

	// merge adds latencies, errors and wall time; qps counts successes over wall time.
	a, b := ok(), ok()
	b.record("point", time.Millisecond, errors.New("x"), 0, 1, "q")
	a.merge(b)
	require.Equal(t, []time.Duration{2 * time.Millisecond, 2 * time.Millisecond}, a.lat["point"])
	require.Equal(t, 1, a.errors)
	require.Equal(t, 2*time.Second, a.elapsed)
	require.InDelta(t, 2.0, a.qps(), 1e-9)
	require.True(t, strings.HasPrefix(a.summary(base, base, 0), "all             4 queries"), a.summary(base, base, 0))
}
