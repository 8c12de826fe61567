package plan

import "github.com/apache/arrow-go/v18/arrow"

// SetOpKind is UNION, INTERSECT or EXCEPT.
type SetOpKind int

// The set operations.
const (
	Union SetOpKind = iota
	Intersect
	Except
)

var setOpNames = [...]string{"union", "intersect", "except"}

func (k SetOpKind) String() string {
	if int(k) < len(setOpNames) {
		return setOpNames[k]
	}
	return "unknown"
}

// SetOp combines two inputs with identical column types. Without All, the result has no
// duplicate rows (NULLs compare equal, as in DISTINCT); with All, multiplicities follow the
// SQL standard (UNION ALL concatenates). The output schema is the left input's, with a column
// nullable when it is nullable on either side.
type SetOp struct {
	Left, Right Node
	Kind        SetOpKind
	All         bool
	schema      *arrow.Schema
}

// NewSetOp builds a set operation.
func NewSetOp(left, right Node, kind SetOpKind, all bool) *SetOp {
	fields := make([]arrow.Field, left.Schema().NumFields())
	for i, f := range left.Schema().Fields() {
		f.Nullable = f.Nullable || right.Schema().Field(i).Nullable
		fields[i] = f
	}
	return &SetOp{Left: left, Right: right, Kind: kind, All: all, schema: arrow.NewSchema(fields, nil)}
}

// Schema implements Node.
func (s *SetOp) Schema() *arrow.Schema { return s.schema }

// Children implements Node.
func (s *SetOp) Children() []Node { return []Node{s.Left, s.Right} }
