package plan

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// FrameUnit is the unit of a window frame.
type FrameUnit int

// Frame units.
const (
	FrameRows FrameUnit = iota
	FrameRange
	FrameGroups
)

// BoundKind is the kind of one end of a window frame.
type BoundKind int

// Frame bounds.
const (
	UnboundedPreceding BoundKind = iota
	Preceding                    // Offset PRECEDING
	CurrentRow
	Following // Offset FOLLOWING
	UnboundedFollowing
)

// FrameBound is one end of a frame. Offset is a constant expression (rows or groups count
// for ROWS/GROUPS, a value of the order key's type or an interval for RANGE).
type FrameBound struct {
	Kind   BoundKind
	Offset Expr
}

// Frame is a window frame. The SQL default (with ORDER BY) is RANGE BETWEEN UNBOUNDED
// PRECEDING AND CURRENT ROW; without ORDER BY the frame is the whole partition.
type Frame struct {
	Unit       FrameUnit
	Start, End FrameBound
}

// WindowFunc is one window function: a ranking/navigation function (row_number, rank,
// dense_rank, percent_rank, cume_dist, ntile, lag, lead, first_value, last_value, nth_value)
// or an aggregate (Func as in AggCall) over a frame.
type WindowFunc struct {
	Func        string
	Args        []Expr // over the input's columns
	Distinct    bool
	IgnoreNulls bool // IGNORE NULLS (lag, lead, first_value, last_value, nth_value)
	Filter      Expr
	PartitionBy []Expr
	OrderBy     []SortKey
	Frame       *Frame // nil means the SQL default for OrderBy
	DataType    arrow.DataType
	Null        bool
	Name        string
}

func (w WindowFunc) String() string {
	args := make([]string, len(w.Args))
	for i, a := range w.Args {
		args[i] = a.String()
	}
	s := w.Func + "(" + strings.Join(args, ", ") + ") OVER ("
	if len(w.PartitionBy) > 0 {
		parts := make([]string, len(w.PartitionBy))
		for i, p := range w.PartitionBy {
			parts[i] = p.String()
		}
		s += "PARTITION BY " + strings.Join(parts, ", ")
	}
	if len(w.OrderBy) > 0 {
		keys := make([]string, len(w.OrderBy))
		for i, k := range w.OrderBy {
			keys[i] = k.String()
		}
		if len(w.PartitionBy) > 0 {
			s += " "
		}
		s += "ORDER BY " + strings.Join(keys, ", ")
	}
	return s + ")"
}

// Window computes window functions. Its output is the input's columns followed by one column
// per function, in order; the row order of the output is unspecified (a Sort above gives one).
type Window struct {
	Input  Node
	Funcs  []WindowFunc
	schema *arrow.Schema
}

// NewWindow builds a window node.
func NewWindow(input Node, funcs []WindowFunc) *Window {
	fields := append([]arrow.Field(nil), input.Schema().Fields()...)
	for _, f := range funcs {
		fields = append(fields, arrow.Field{Name: f.Name, Type: f.DataType, Nullable: f.Null})
	}
	return &Window{Input: input, Funcs: funcs, schema: arrow.NewSchema(fields, nil)}
}

// Schema implements Node.
func (w *Window) Schema() *arrow.Schema { return w.schema }

// Children implements Node.
func (w *Window) Children() []Node { return []Node{w.Input} }
