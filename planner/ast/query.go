package ast

// FromItem is one entry of a FROM clause: a base table, a derived table (subquery), a
// VALUES list or a join of two items.
type FromItem interface {
	fromItem()
	// Position is where the item starts.
	Position() Pos
}

// JoinKind is the kind of a join as written.
type JoinKind int

// The join kinds.
const (
	JoinInner JoinKind = iota
	JoinLeft
	JoinRight
	JoinFull
	JoinCross
	JoinSemi
	JoinAnti
)

var joinKindSQL = [...]string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", "SEMI JOIN", "ANTI JOIN"}

// String renders the kind as SQL writes it ("LEFT JOIN").
func (k JoinKind) String() string {
	if int(k) < len(joinKindSQL) {
		return joinKindSQL[k]
	}
	return "JOIN"
}

// Join is Left <kind> JOIN Right [ON On | USING (Using...)], or NATURAL, or a comma join
// (Comma set, Kind JoinCross).
type Join struct {
	Pos     Pos
	Kind    JoinKind
	Left    FromItem
	Right   FromItem
	On      Expr     // nil when absent
	Using   []string // USING column names
	Natural bool
	Comma   bool
}

// SubqueryRef is a derived table: (query) [AS] alias [(column aliases)].
type SubqueryRef struct {
	Pos     Pos
	Query   Statement
	Alias   string
	Columns []string
}

// CTE is one WITH entry: name [(columns)] AS (query).
type CTE struct {
	Pos     Pos
	Name    string
	Columns []string
	Query   Statement
}

// With is WITH [RECURSIVE] ctes query.
type With struct {
	Pos       Pos
	Recursive bool
	CTEs      []CTE
	Query     Statement
}

// SetOp is Left UNION|INTERSECT|EXCEPT [ALL] Right with optional ORDER BY/LIMIT/OFFSET
// applying to the whole result.
type SetOp struct {
	Pos         Pos
	Op          string // "UNION", "INTERSECT" or "EXCEPT"
	All         bool
	ByName      bool // UNION [ALL] BY NAME: columns match by name, not position
	Left, Right Statement
	OrderBy     []OrderItem
	Limit       Expr
	Offset      Expr
}

// Values is VALUES (row), (row), ... with optional ORDER BY/LIMIT (as a statement) or an
// alias with column names (in FROM).
type Values struct {
	Pos     Pos
	Rows    [][]Expr
	Alias   string
	Columns []string
}

// Subquery is a scalar subquery expression: (SELECT ...).
type Subquery struct {
	Pos   Pos
	Query Statement
}

// Exists is [NOT] EXISTS (query).
type Exists struct {
	Pos   Pos
	Query Statement
	Not   bool
}

// InSubquery is X [NOT] IN (query).
type InSubquery struct {
	Pos   Pos
	X     Expr
	Query Statement
	Not   bool
}

// IsDistinct is X IS [NOT] DISTINCT FROM Y.
type IsDistinct struct {
	Pos  Pos
	L, R Expr
	Not  bool
}

// Interval is INTERVAL 'text' [unit] or INTERVAL n unit. Text is the quantity as written;
// Unit is upper case ("" when the text carries the units).
type Interval struct {
	Pos  Pos
	Text string
	Unit string
}

func (*TableRef) fromItem()    {}
func (*Join) fromItem()        {}
func (*SubqueryRef) fromItem() {}
func (*Values) fromItem()      {}

func (*With) stmt()   {}
func (*SetOp) stmt()  {}
func (*Values) stmt() {}

func (e *Subquery) expr()   {}
func (e *Exists) expr()     {}
func (e *InSubquery) expr() {}
func (e *IsDistinct) expr() {}
func (e *Interval) expr()   {}

// Position implements FromItem.
func (t *TableRef) Position() Pos { return t.Pos }

// Position implements FromItem.
func (j *Join) Position() Pos { return j.Pos }

// Position implements FromItem.
func (s *SubqueryRef) Position() Pos { return s.Pos }

// Position implements FromItem and Statement.
func (v *Values) Position() Pos { return v.Pos }

// Position implements Statement.
func (w *With) Position() Pos { return w.Pos }

// Position implements Statement.
func (s *SetOp) Position() Pos { return s.Pos }

// Position implements Expr.
func (e *Subquery) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Exists) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *InSubquery) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *IsDistinct) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Interval) Position() Pos { return e.Pos }

// BoundColumn is a column the binder has already resolved, e.g. one column of a star
// expansion. The parser never produces it; Ref holds the binder's column reference.
type BoundColumn struct {
	Pos  Pos
	Name string
	Ref  any
}

func (e *BoundColumn) expr() {}

// Position implements Expr.
func (e *BoundColumn) Position() Pos { return e.Pos }

// GroupAll is GROUP BY ALL: group by every select-list item that has no aggregate. It is
// the only entry of Select.GroupBy when present.
type GroupAll struct {
	Pos Pos
}

func (e *GroupAll) expr() {}

// Position implements Expr.
func (e *GroupAll) Position() Pos { return e.Pos }

// GroupingSets is ROLLUP (...), CUBE (...) or GROUPING SETS (...) in GROUP BY. Sets are
// the grouping sets it stands for (ROLLUP and CUBE are expanded by the parser); Kind and
// Items keep the written form.
type GroupingSets struct {
	Pos   Pos
	Kind  string // "ROLLUP", "CUBE" or "GROUPING SETS"
	Items []Expr // ROLLUP and CUBE arguments
	Sets  [][]Expr
}

func (e *GroupingSets) expr() {}

// Position implements Expr.
func (e *GroupingSets) Position() Pos { return e.Pos }
