package plan

import (
	"fmt"
	"strings"
)

// Explain renders n as the canonical indented plan tree used by EXPLAIN, the optimizer's
// rule tests and error messages: one operator per line, children indented by two spaces.
//
//	Limit: offset=0 count=10
//	  Sort: x#0 DESC NULLS LAST
//	    Project: x := a#0
//	      Scan: t version=3 columns=[a#0] filter=gt(a#0, 5) limit=none
func Explain(n Node) string {
	var b strings.Builder
	explain(&b, n, 0)
	return b.String()
}

func explain(b *strings.Builder, n Node, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	b.WriteString(explainLine(n))
	b.WriteByte('\n')
	for _, c := range n.Children() {
		explain(b, c, depth+1)
	}
}

func explainLine(n Node) string {
	switch n := n.(type) {
	case *Scan:
		return explainScan(n)
	case *Filter:
		return "Filter: " + n.Cond.String()
	case *Project:
		parts := make([]string, len(n.Exprs))
		for i, e := range n.Exprs {
			parts[i] = n.Names[i] + " := " + e.String()
		}
		return "Project: " + strings.Join(parts, ", ")
	case *Aggregate:
		return explainAggregate(n)
	case *Sort:
		parts := make([]string, len(n.Keys))
		for i, k := range n.Keys {
			parts[i] = k.String()
		}
		return "Sort: " + strings.Join(parts, ", ")
	case *Limit:
		count := "all"
		if n.Count >= 0 {
			count = fmt.Sprint(n.Count)
		}
		return fmt.Sprintf("Limit: offset=%d count=%s", n.Offset, count)
	}
	return fmt.Sprintf("%T", n)
}

func explainScan(s *Scan) string {
	cols := make([]string, len(s.Columns))
	fields := s.Table.Schema().Fields()
	for i, c := range s.Columns {
		if c >= 0 && c < len(fields) {
			cols[i] = fmt.Sprintf("%s#%d", fields[c].Name, c)
		} else {
			cols[i] = fmt.Sprintf("?#%d", c)
		}
	}
	line := fmt.Sprintf("Scan: %s version=%d columns=[%s]", s.Table.Name(), s.Table.Version(), strings.Join(cols, ", "))
	if s.Filter != nil {
		line += " filter=" + s.Filter.String()
	}
	if s.Limit >= 0 {
		line += fmt.Sprintf(" limit=%d", s.Limit)
	}
	return line
}

func explainAggregate(a *Aggregate) string {
	groups := make([]string, len(a.GroupBy))
	for i, g := range a.GroupBy {
		groups[i] = a.Names[i] + " := " + g.String()
	}
	aggs := make([]string, len(a.Aggs))
	for i, c := range a.Aggs {
		aggs[i] = c.Name + " := " + c.String()
	}
	return fmt.Sprintf("Aggregate: group=[%s] aggs=[%s]", strings.Join(groups, ", "), strings.Join(aggs, ", "))
}

// String renders the aggregate call, e.g. "sum(DISTINCT x#1)" or "count(*)".
func (a AggCall) String() string {
	args := make([]string, len(a.Args))
	for i, x := range a.Args {
		args[i] = x.String()
	}
	s := strings.Join(args, ", ")
	if len(a.Args) == 0 && a.Func == "count" {
		s = "*"
	}
	if a.Distinct {
		s = "DISTINCT " + s
	}
	out := a.Func + "(" + s + ")"
	if a.Filter != nil {
		out += " FILTER (WHERE " + a.Filter.String() + ")"
	}
	return out
}

// String renders the sort key, e.g. "x#0 DESC NULLS LAST".
func (k SortKey) String() string {
	dir, nulls := "ASC", "NULLS LAST"
	if k.Descending {
		dir = "DESC"
	}
	if k.NullsFirst {
		nulls = "NULLS FIRST"
	}
	return k.Expr.String() + " " + dir + " " + nulls
}
