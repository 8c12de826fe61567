package ast

// Expr is an untyped expression.
type Expr interface {
	// Position is where the expression starts.
	Position() Pos
	expr()
}

// LitKind is the kind of a literal.
type LitKind int

// The literal kinds.
const (
	LitInt       LitKind = iota // 42
	LitDecimal                  // 1.5, 1e3
	LitString                   // 'abc'
	LitBool                     // TRUE, FALSE
	LitNull                     // NULL
	LitDate                     // DATE '2020-01-01'
	LitTimestamp                // TIMESTAMP '2020-01-01 10:00:00'
)

// Literal is a constant. Text is the source text of numbers, the unquoted value of strings,
// dates and timestamps, and "TRUE"/"FALSE"/"NULL" for the keywords.
type Literal struct {
	Pos  Pos
	Kind LitKind
	Text string
}

// ColumnRef names a column, possibly qualified (t.c).
type ColumnRef struct {
	Pos   Pos
	Parts []string
}

// Unary is a prefix operator: "-", "+" or "NOT".
type Unary struct {
	Pos Pos
	Op  string
	X   Expr
}

// Binary is an infix operator: arithmetic (+ - * / %), comparison (= <> < <= > >=),
// AND, OR and || (concatenation).
type Binary struct {
	Pos  Pos
	Op   string
	L, R Expr
}

// IsNull is X IS [NOT] NULL.
type IsNull struct {
	Pos Pos
	X   Expr
	Not bool
}

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	Pos       Pos
	X, Lo, Hi Expr
	Not       bool
}

// InList is X [NOT] IN (List...).
type InList struct {
	Pos  Pos
	X    Expr
	List []Expr
	Not  bool
}

// Like is X [NOT] LIKE|ILIKE Pattern.
type Like struct {
	Pos     Pos
	X       Expr
	Pattern Expr
	Not     bool
	ILike   bool
}

// When is one WHEN ... THEN ... arm of a CASE.
type When struct {
	Cond, Then Expr
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE ...] END.
type Case struct {
	Pos     Pos
	Operand Expr // nil for a searched CASE
	Whens   []When
	Else    Expr // nil when absent
}

// TypeName is a SQL type as written, e.g. DECIMAL(10, 2). Name is upper case. Dims are
// array suffixes, outermost last: FLOAT[3] has Dims [3], INTEGER[] has Dims [-1] (a list).
type TypeName struct {
	Name string
	Args []int
	Dims []int
	// Fields are the fields of STRUCT(name type, ...); nil for other types.
	Fields []StructField
}

// Cast is CAST(X AS T), TRY_CAST(X AS T) or X::T.
type Cast struct {
	Pos  Pos
	X    Expr
	Type TypeName
	Try  bool
}

// FuncCall is name([DISTINCT] args) or name(*).
type FuncCall struct {
	Pos      Pos
	Name     string // lower case
	Args     []Expr
	Distinct bool
	Star     bool // count(*)
	// IgnoreNulls is name(args IGNORE NULLS) (RESPECT NULLS, the default, leaves it false).
	IgnoreNulls bool
	Filter      Expr        // FILTER (WHERE ...); nil when absent
	Over        *WindowSpec // OVER (...): a window function; nil otherwise
	// OrderBy is an aggregate's ORDER BY inside the parentheses (string_agg(x, ',' ORDER
	// BY y)); nil when absent.
	OrderBy []OrderItem
}

// Param is a prepared-statement parameter: ? (Index 0, numbered by position: Ordinal) or
// $n.
type Param struct {
	Pos     Pos
	Index   int // n of $n; 0 for ?
	Ordinal int // 1-based position of a ? among the statement's ? parameters
}

func (e *Literal) expr()   {}
func (e *ColumnRef) expr() {}
func (e *Unary) expr()     {}
func (e *Binary) expr()    {}
func (e *IsNull) expr()    {}
func (e *Between) expr()   {}
func (e *InList) expr()    {}
func (e *Like) expr()      {}
func (e *Case) expr()      {}
func (e *Cast) expr()      {}
func (e *FuncCall) expr()  {}
func (e *Param) expr()     {}

// Position implements Expr.
func (e *Literal) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *ColumnRef) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Unary) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Binary) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *IsNull) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Between) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *InList) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Like) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Case) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Cast) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *FuncCall) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Param) Position() Pos { return e.Pos }

// Children returns the direct sub-expressions of e.
func Children(e Expr) []Expr {
	switch e := e.(type) {
	case *Unary:
		return []Expr{e.X}
	case *Binary:
		return []Expr{e.L, e.R}
	case *IsNull:
		return []Expr{e.X}
	case *Between:
		return []Expr{e.X, e.Lo, e.Hi}
	case *InList:
		return append([]Expr{e.X}, e.List...)
	case *Like:
		return []Expr{e.X, e.Pattern}
	case *Case:
		var out []Expr
		if e.Operand != nil {
			out = append(out, e.Operand)
		}
		for _, w := range e.Whens {
			out = append(out, w.Cond, w.Then)
		}
		if e.Else != nil {
			out = append(out, e.Else)
		}
		return out
	case *Cast:
		return []Expr{e.X}
	case *FuncCall:
		if e.Over == nil && len(e.OrderBy) == 0 {
			return e.Args
		}
		out := append([]Expr{}, e.Args...)
		for _, o := range e.OrderBy {
			out = append(out, o.Expr)
		}
		if e.Over == nil {
			return out
		}
		out = append(out, e.Over.PartitionBy...)
		for _, o := range e.Over.OrderBy {
			out = append(out, o.Expr)
		}
		return out
	case *InSubquery:
		return []Expr{e.X}
	case *IsDistinct:
		return []Expr{e.L, e.R}
	case *StructPack:
		return e.Values
	case *Subscript:
		if e.Index != nil {
			return []Expr{e.X, e.Index}
		}
		return []Expr{e.X}
	}
	return nil
}

// Any reports whether pred holds for e or any expression below it.
func Any(e Expr, pred func(Expr) bool) bool {
	if pred(e) {
		return true
	}
	for _, c := range Children(e) {
		if Any(c, pred) {
			return true
		}
	}
	return false
}
