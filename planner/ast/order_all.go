package ast

// OrderAll is ORDER BY ALL: order by every select-list item, left to right, in the
// item's direction. It is the Expr of the only entry of an ORDER BY list when present.
type OrderAll struct {
	Pos Pos
}

func (e *OrderAll) expr() {}

// Position implements Expr.
func (e *OrderAll) Position() Pos { return e.Pos }
