package plan

// RewriteColumns returns e with every ColumnRef replaced by f's result. Expressions without
// column references are returned as they are; e itself is never modified.
func RewriteColumns(e Expr, f func(*ColumnRef) Expr) Expr {
	switch e := e.(type) {
	case *ColumnRef:
		return f(e)
	case *Call:
		args := make([]Expr, len(e.Args))
		for i, a := range e.Args {
			args[i] = RewriteColumns(a, f)
		}
		out := *e
		out.Args = args
		return &out
	case *Cast:
		out := *e
		out.Input = RewriteColumns(e.Input, f)
		return &out
	}
	return e
}

// Columns calls f for every ColumnRef in e, depth-first.
func Columns(e Expr, f func(*ColumnRef)) {
	switch e := e.(type) {
	case *ColumnRef:
		f(e)
	case *Call:
		for _, a := range e.Args {
			Columns(a, f)
		}
	case *Cast:
		Columns(e.Input, f)
	}
}
