package ast

// Replace returns e with every sub-expression for which f reports true replaced by f's
// result, copying the nodes on the way; e is not modified. Subqueries are not entered.
func Replace(e Expr, f func(Expr) (Expr, bool)) Expr {
	if e == nil {
		return nil
	}
	if out, ok := f(e); ok {
		return out
	}
	r := func(x Expr) Expr { return Replace(x, f) }
	switch e := e.(type) {
	case *Unary:
		c := *e
		c.X = r(e.X)
		return &c
	case *Binary:
		c := *e
		c.L, c.R = r(e.L), r(e.R)
		return &c
	case *IsNull:
		c := *e
		c.X = r(e.X)
		return &c
	case *Between:
		c := *e
		c.X, c.Lo, c.Hi = r(e.X), r(e.Lo), r(e.Hi)
		return &c
	case *InList:
		c := *e
		c.X, c.List = r(e.X), replaceAll(e.List, f)
		return &c
	case *Like:
		c := *e
		c.X, c.Pattern = r(e.X), r(e.Pattern)
		return &c
	case *Case:
		c := *e
		c.Operand, c.Else = r(e.Operand), r(e.Else)
		c.Whens = make([]When, len(e.Whens))
		for i, w := range e.Whens {
			c.Whens[i] = When{Cond: r(w.Cond), Then: r(w.Then)}
		}
		return &c
	case *Cast:
		c := *e
		c.X = r(e.X)
		return &c
	case *FuncCall:
		return replaceCall(e, f)
	case *InSubquery:
		c := *e
		c.X = r(e.X)
		return &c
	case *IsDistinct:
		c := *e
		c.L, c.R = r(e.L), r(e.R)
		return &c
	case *StructPack:
		c := *e
		c.Values = replaceAll(e.Values, f)
		return &c
	case *Subscript:
		c := *e
		c.X, c.Index = r(e.X), Replace(e.Index, f)
		return &c
	}
	return e
}

func replaceAll(es []Expr, f func(Expr) (Expr, bool)) []Expr {
	if es == nil {
		return nil
	}
	out := make([]Expr, len(es))
	for i, x := range es {
		out[i] = Replace(x, f)
	}
	return out
}

func replaceCall(e *FuncCall, f func(Expr) (Expr, bool)) Expr {
	c := *e
	c.Args = replaceAll(e.Args, f)
	c.Filter = Replace(e.Filter, f)
	if e.OrderBy != nil {
		c.OrderBy = make([]OrderItem, len(e.OrderBy))
		for i, o := range e.OrderBy {
			o.Expr = Replace(o.Expr, f)
			c.OrderBy[i] = o
		}
	}
	if e.Over != nil {
		w := *e.Over
		w.PartitionBy = replaceAll(e.Over.PartitionBy, f)
		w.OrderBy = make([]OrderItem, len(e.Over.OrderBy))
		for i, o := range e.Over.OrderBy {
			o.Expr = Replace(o.Expr, f)
			w.OrderBy[i] = o
		}
		c.Over = &w
	}
	return &c
}
