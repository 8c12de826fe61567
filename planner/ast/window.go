package ast

// FrameBoundSpec is one end of a window frame as written.
type FrameBoundSpec struct {
	Kind   string // "UNBOUNDED PRECEDING", "PRECEDING", "CURRENT ROW", "FOLLOWING", "UNBOUNDED FOLLOWING"
	Offset Expr   // for PRECEDING and FOLLOWING
}

// FrameSpec is ROWS|RANGE|GROUPS BETWEEN start AND end (or a single start bound).
type FrameSpec struct {
	Unit  string // "ROWS", "RANGE" or "GROUPS"
	Start FrameBoundSpec
	End   *FrameBoundSpec // nil for the single-bound form (end is CURRENT ROW)
}

// WindowSpec is the OVER clause of a window function, or one WINDOW clause definition.
// Name refers to a named window the spec refines.
type WindowSpec struct {
	Name        string
	PartitionBy []Expr
	OrderBy     []OrderItem
	Frame       *FrameSpec
}

// NamedWindow is one entry of the WINDOW clause: name AS (spec).
type NamedWindow struct {
	Name string
	Spec WindowSpec
}
