package plan

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// JoinType is the kind of a join.
type JoinType int

// The join types. Semi and Anti output only the left columns; Mark outputs the left columns
// plus one boolean column "mark" (true when a match exists, NULL when no match exists but a
// comparison was NULL, false otherwise: the value of `x IN (subquery)`).
const (
	InnerJoin JoinType = iota
	LeftJoin
	RightJoin
	FullJoin
	SemiJoin
	AntiJoin
	MarkJoin
	CrossJoin
)

var joinTypeNames = [...]string{"inner", "left", "right", "full", "semi", "anti", "mark", "cross"}

func (t JoinType) String() string {
	if int(t) < len(joinTypeNames) {
		return joinTypeNames[t]
	}
	return "unknown"
}

// Join combines two inputs. Rows match when every LeftKeys[i] equals RightKeys[i] (SQL
// equality: NULL keys never match) and Cond is true. LeftKeys are over the left input's
// columns, RightKeys over the right input's; Cond (nil means true) is over the left columns
// followed by the right columns. A join without keys is a nested-loop join.
//
// The output is the left columns followed by the right columns (right columns nullable for
// Left/Full joins, left columns nullable for Right/Full joins), except for Semi, Anti and Mark
// joins (see JoinType).
type Join struct {
	Left, Right         Node
	Type                JoinType
	LeftKeys, RightKeys []Expr
	Cond                Expr
	schema              *arrow.Schema
}

// NewJoin builds a join node and its output schema.
func NewJoin(left, right Node, typ JoinType, leftKeys, rightKeys []Expr, cond Expr) *Join {
	j := &Join{Left: left, Right: right, Type: typ, LeftKeys: leftKeys, RightKeys: rightKeys, Cond: cond}
	j.schema = joinSchema(left.Schema(), right.Schema(), typ)
	return j
}

func joinSchema(l, r *arrow.Schema, typ JoinType) *arrow.Schema {
	fields := make([]arrow.Field, 0, l.NumFields()+r.NumFields())
	for _, f := range l.Fields() {
		f.Nullable = f.Nullable || typ == RightJoin || typ == FullJoin
		fields = append(fields, f)
	}
	switch typ {
	case SemiJoin, AntiJoin:
	case MarkJoin:
		fields = append(fields, arrow.Field{Name: "mark", Type: arrow.FixedWidthTypes.Boolean, Nullable: true})
	default:
		for _, f := range r.Fields() {
			f.Nullable = f.Nullable || typ == LeftJoin || typ == FullJoin
			fields = append(fields, f)
		}
	}
	return arrow.NewSchema(fields, nil)
}

// Schema implements Node.
func (j *Join) Schema() *arrow.Schema { return j.schema }

// Children implements Node.
func (j *Join) Children() []Node { return []Node{j.Left, j.Right} }
