package plan

import (
	"fmt"
	"strconv"
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
			count = strconv.FormatInt(n.Count, 10)
		}
		return fmt.Sprintf("Limit: offset=%d count=%s", n.Offset, count)
	case *Join:
		return explainJoin(n)
	case *SetOp:
		line := "SetOp: " + n.Kind.String()
		if n.All {
			line += " all"
		}
		return line
	case *Values:
		return explainValues(n)
	case *Window:
		return explainWindow(n)
	case *RecursiveCTE:
		line := fmt.Sprintf("RecursiveCTE: id=%d union", n.ID)
		if n.All {
			line += " all"
		}
		return line
	case *WorkingTable:
		return fmt.Sprintf("WorkingTable: id=%d", n.ID)
	case *Range, *Unnest: // table_func.go
		return n.(fmt.Stringer).String()
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
	for _, f := range s.Request().RowFields() {
		cols = append(cols, f.Name)
	}
	line := fmt.Sprintf("Scan: %s version=%d columns=[%s]", s.Table.Name(), s.Table.Version(), strings.Join(cols, ", "))
	if s.Filter != nil {
		line += " filter=" + s.Filter.String()
	}
	if s.Limit >= 0 {
		line += fmt.Sprintf(" limit=%d", s.Limit)
	}
	if s.Index != nil && s.Index.Explain != "" {
		line += " " + s.Index.Explain
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

func explainJoin(j *Join) string {
	line := "Join: " + j.Type.String()
	if len(j.LeftKeys) > 0 {
		keys := make([]string, len(j.LeftKeys))
		for i := range j.LeftKeys {
			keys[i] = j.LeftKeys[i].String() + " = " + j.RightKeys[i].String()
		}
		line += " keys=[" + strings.Join(keys, ", ") + "]"
	}
	if j.Cond != nil {
		line += " cond=" + j.Cond.String()
	}
	return line
}

func explainValues(v *Values) string {
	names := make([]string, v.schema.NumFields())
	for i, f := range v.schema.Fields() {
		names[i] = f.Name
	}
	rows := make([]string, len(v.Rows))
	for i, r := range v.Rows {
		vals := make([]string, len(r))
		for k, e := range r {
			vals[k] = e.String()
		}
		rows[i] = "(" + strings.Join(vals, ", ") + ")"
	}
	return fmt.Sprintf("Values: columns=[%s] rows=[%s]", strings.Join(names, ", "), strings.Join(rows, ", "))
}

func explainWindow(w *Window) string {
	parts := make([]string, len(w.Funcs))
	for i, f := range w.Funcs {
		s := f.String()
		if f.Distinct {
			s = strings.Replace(s, "(", "(DISTINCT ", 1)
		}
		if f.IgnoreNulls {
			s = strings.Replace(s, ") OVER (", " IGNORE NULLS) OVER (", 1)
		}
		if f.Filter != nil {
			s += " FILTER (WHERE " + f.Filter.String() + ")"
		}
		if f.Frame != nil {
			s += " " + f.Frame.String()
		}
		parts[i] = f.Name + " := " + s
	}
	return "Window: " + strings.Join(parts, ", ")
}

var frameUnitNames = [...]string{"ROWS", "RANGE", "GROUPS"}

// String renders the frame, e.g. "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW".
func (f *Frame) String() string {
	unit := "?"
	if int(f.Unit) < len(frameUnitNames) {
		unit = frameUnitNames[f.Unit]
	}
	return unit + " BETWEEN " + f.Start.String() + " AND " + f.End.String()
}

// String renders the bound, e.g. "2 PRECEDING".
func (b FrameBound) String() string {
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case Preceding:
		return fmt.Sprint(b.Offset) + " PRECEDING"
	case CurrentRow:
		return "CURRENT ROW"
	case Following:
		return fmt.Sprint(b.Offset) + " FOLLOWING"
	}
	return "UNBOUNDED FOLLOWING"
}
