package substrait_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/extensions"
	sgplan "github.com/substrait-io/substrait-go/v8/plan"

	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

// bindSQL parses and binds sql against the standard test catalog.
func bindSQL(t testing.TB, sql string) plan.Node {
	t.Helper()
	stmt, err := parse.Parse(sql)
	require.NoError(t, err)
	n, err := bind.Bind(context.Background(), plantest.Standard(), stmt)
	require.NoError(t, err)
	return n
}

// describe is the EXPLAIN text plus the output schema of every node, so that a round trip
// must also keep every type.
func describe(n plan.Node) string {
	var b strings.Builder
	b.WriteString(plan.Explain(n))
	var walk func(plan.Node)
	walk = func(n plan.Node) {
		b.WriteString(plantest.SchemaString(n.Schema()) + "\n")
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// roundTrip produces n, consumes the bytes and returns the rebuilt plan.
func roundTrip(t *testing.T, n plan.Node) plan.Node {
	t.Helper()
	b, err := substrait.Marshal(n)
	require.NoError(t, err)
	out, err := substrait.Unmarshal(context.Background(), plantest.Standard(), b)
	require.NoError(t, err)
	return out
}

var loadOwnExtension = sync.OnceValue(func() error {
	c := extensions.GetDefaultCollectionWithNoError()
	if c.URNLoaded(substrait.URN) {
		return nil
	}
	return c.Load(substrait.URI, bytes.NewReader(substrait.ExtensionYAML))
})

// TestRoundTrip: for every query the binder tests bind successfully, SQL → plan →
// Substrait → plan gives the same EXPLAIN and schemas, before and after optimization, and
// substrait-go accepts the produced plan.
func TestRoundTrip(t *testing.T) {
	require.NoError(t, loadOwnExtension())
	n := 0
	for _, c := range plantest.ReadCases(t, "../bind/testdata/bind") {
		if strings.HasPrefix(c.Expected, "error:") {
			continue
		}
		n++
		t.Run(c.Input, func(t *testing.T) {
			bound := bindSQL(t, c.Input)
			require.Equal(t, describe(bound), describe(roundTrip(t, bound)))
			opt := optimize.Optimize(bound)
			require.Equal(t, describe(opt), describe(roundTrip(t, opt)))

			for _, p := range []plan.Node{bound, opt} {
				if skipSubstraitGo(p) {
					// substrait-go v8.1.1 cannot type LEFT_MARK joins (it panics), and it types
					// SetRel inputs ignoring ReadRel projection masks (then the inputs of a
					// set operation over pruned scans seem to differ).
					continue
				}
				pp, err := substrait.Produce(p)
				require.NoError(t, err)
				_, err = sgplan.FromProto(pp, extensions.GetDefaultCollectionWithNoError())
				require.NoError(t, err, "substrait-go rejects the plan")
			}
		})
	}
	require.Greater(t, n, 25, "the binder testdata should provide many queries")
}

func skipSubstraitGo(n plan.Node) bool {
	switch n := n.(type) {
	case *plan.Join:
		if n.Type == plan.MarkJoin {
			return true
		}
	case *plan.SetOp:
		return true
	}
	for _, c := range n.Children() {
		if skipSubstraitGo(c) {
			return true
		}
	}
	return false
}
