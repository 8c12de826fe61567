package build

import (
	"context"
	"fmt"
	"strings"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// wrap returns op wrapped in an exec.Analyzed recording into the stats of plan node n when
// env.Analyze is set, else op itself. The stats' children are those of n's plan children
// that have operators (a child fused into its parent, like the Sort of a TopN, is skipped
// over).
func wrap(op exec.Operator, n plan.Node, env exec.Env) exec.Operator {
	if !env.Analyze || env.Profile == nil || n == nil {
		return op
	}
	st := env.Profile.Stats(n, label(op, n))
	if st.Children == nil {
		st.Children = childStats(env.Profile, n)
	}
	return exec.NewAnalyzed(op, st, env.Profile)
}

func childStats(p *exec.Profile, n plan.Node) []*exec.OpStats {
	out := []*exec.OpStats{}
	for _, c := range n.Children() {
		if st, ok := p.Lookup(c); ok {
			out = append(out, st)
			continue
		}
		out = append(out, childStats(p, c)...)
	}
	return out
}

// label is n's EXPLAIN line, with the physical operator when it is not the obvious one.
func label(op exec.Operator, n plan.Node) string {
	line := firstLine(n)
	switch op.(type) {
	case *ops.TopN:
		if l, ok := n.(*plan.Limit); ok {
			return line + " [TopN with " + firstLine(l.Input) + "]"
		}
	case *ops.ParallelAggregate:
		return line + " [parallel: partial per worker, then merge]"
	case *ops.Scan:
		s := op.(*ops.Scan)
		if k := s.RuntimeFilters(); k > 0 {
			line += fmt.Sprintf(" [join filters: %d]", k)
		}
		if f, all := s.LateColumns(); all > 0 {
			line += fmt.Sprintf(" [late materialization offered: filter reads %d of %d columns first]", f, all)
		}
	}
	return line
}

func firstLine(n plan.Node) string {
	s := plan.Explain(n)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// ExplainAnalyze runs n to the end with env (Analyze forced on), discarding its rows, and
// returns the EXPLAIN ANALYZE text: the operator tree with each operator's rows, batches,
// time and bytes read, then the query's memory peak (see exec.Analyze for the format). This
// is what a front end prints for EXPLAIN ANALYZE <query>; errors are the query's own.
func ExplainAnalyze(ctx context.Context, n plan.Node, env exec.Env) (string, error) {
	env.Analyze = true
	env.Profile = nil
	op, err := Build(n, env)
	if err != nil {
		return "", err
	}
	if err := drainDiscard(ctx, op); err != nil {
		return "", err
	}
	return exec.Analyze(op), nil
}

// drainDiscard opens op, reads and releases every batch, and closes it.
func drainDiscard(ctx context.Context, op exec.Operator) (err error) {
	defer func() {
		if cerr := op.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close operator: %w", cerr)
		}
	}()
	if err := op.Open(ctx); err != nil {
		return err
	}
	for {
		b, err := op.Next(ctx)
		if err != nil || b == nil {
			return err
		}
		b.Release()
	}
}
