package plan

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Expr is a bound scalar expression with a known Arrow result type.
type Expr interface {
	// Type is the Arrow type of the expression's value.
	Type() arrow.DataType
	// Nullable reports whether the expression may evaluate to NULL.
	Nullable() bool
	// String renders the expression for EXPLAIN.
	String() string
}

// ColumnRef reads column Index of the input batch.
type ColumnRef struct {
	Index    int
	Name     string // for printing only
	DataType arrow.DataType
	Null     bool
}

// Type implements Expr.
func (c *ColumnRef) Type() arrow.DataType { return c.DataType }

// Nullable implements Expr.
func (c *ColumnRef) Nullable() bool { return c.Null }

func (c *ColumnRef) String() string {
	if c.Name != "" {
		return fmt.Sprintf("%s#%d", c.Name, c.Index)
	}
	return fmt.Sprintf("#%d", c.Index)
}

// Literal is a constant. Value's type equals the literal's type; a NULL literal has
// Value.IsValid() == false.
type Literal struct {
	Value scalar.Scalar
}

// Type implements Expr.
func (l *Literal) Type() arrow.DataType { return l.Value.DataType() }

// Nullable implements Expr.
func (l *Literal) Nullable() bool { return !l.Value.IsValid() }

func (l *Literal) String() string {
	if !l.Value.IsValid() {
		return "NULL"
	}
	switch l.Value.DataType().ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return "'" + strings.ReplaceAll(l.Value.String(), "'", "''") + "'"
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		// Hex, so that no two byte strings (or a byte string and a column) print alike:
		// plan texts key shared subplans and aggregate subexpressions.
		if b, ok := l.Value.(scalar.BinaryScalar); ok {
			return "X'" + strings.ToUpper(hex.EncodeToString(b.Data())) + "'"
		}
	}
	return l.Value.String()
}

// Call applies a scalar function. Func is the function's canonical name, the name of its
// Substrait extension function where one exists ("add", "gt", "and", "is_null", ...).
// The binder has already inserted the casts the overload needs, so Args have the exact
// types the function expects.
type Call struct {
	Func     string
	Args     []Expr
	DataType arrow.DataType
	Null     bool
}

// Type implements Expr.
func (c *Call) Type() arrow.DataType { return c.DataType }

// Nullable implements Expr.
func (c *Call) Nullable() bool { return c.Null }

func (c *Call) String() string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.String()
	}
	return c.Func + "(" + strings.Join(args, ", ") + ")"
}

// Cast converts its input to DataType. A failing conversion is an error unless Try is set,
// in which case it yields NULL (TRY_CAST).
type Cast struct {
	Input    Expr
	DataType arrow.DataType
	Try      bool
}

// Type implements Expr.
func (c *Cast) Type() arrow.DataType { return c.DataType }

// Nullable implements Expr.
func (c *Cast) Nullable() bool { return c.Try || c.Input.Nullable() }

func (c *Cast) String() string {
	name := "CAST"
	if c.Try {
		name = "TRY_CAST"
	}
	return fmt.Sprintf("%s(%s AS %s)", name, c.Input, c.DataType)
}
