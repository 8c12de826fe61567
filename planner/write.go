package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

// Writes (INSERT, UPDATE, DELETE) do not go through Substrait: Prepared.Write carries the
// bound logical plan, its source optimized, and the caller executes it at once (exec/build
// builds the write operator, which commits one table version and outputs the row count).

// NoColumns is the dataset schema of a write: it has no result set, only a row count. JDBC
// tells updates from queries by this empty schema of the prepared statement.
var NoColumns = arrow.NewSchema(nil, nil)

// errAnalyzeWrite refuses EXPLAIN ANALYZE of a write, which would have to run it.
var errAnalyzeWrite = dberr.NotSupported("EXPLAIN ANALYZE of INSERT, UPDATE, DELETE or CREATE TABLE (EXPLAIN shows its plan)")

// planWrite binds a write statement; with values nil and placeholders present it reports
// only the parameter schema (Write nil).
func (p *Planner) planWrite(ctx context.Context, stmt ast.Statement, values []scalar.Scalar) (*Prepared, error) {
	n, types, err := bind.BindWrite(ctx, p.cat, stmt, values)
	if err != nil {
		return nil, err
	}
	out := &Prepared{Schema: NoColumns, Params: paramSchema(types), IsWrite: true}
	if values == nil && len(types) > 0 {
		return out, nil
	}
	src, _ := plan.WriteSource(n)
	out.Write = plan.WithWriteSource(n, Optimize(src))
	return out, nil
}

// CountResult is the prepared one-row result of a write that has run: plan.CountSchema
// with value n, as a Substrait plan like any query's, for clients that sent the write as a
// query and fetch its result.
func CountResult(n int64) (*Prepared, error) {
	v := plan.NewValues(plan.CountSchema, [][]plan.Expr{{&plan.Literal{Value: scalar.NewInt64Scalar(n)}}})
	b, err := substrait.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &Prepared{Substrait: b, Schema: plan.CountSchema, Params: NoColumns}, nil
}

// explainWrite plans a write without running it and renders its plan: one line naming the
// write and its target, then its optimized source.
func (p *Planner) explainWrite(ctx context.Context, stmt ast.Statement, values []scalar.Scalar) (string, error) {
	if values == nil {
		values = []scalar.Scalar{}
	}
	n, _, err := bind.BindWrite(ctx, p.cat, stmt, values)
	if err != nil {
		return "", err
	}
	src, _ := plan.WriteSource(n)
	var head string
	switch w := n.(type) {
	case *plan.Insert:
		head = fmt.Sprintf("Insert: %s version=%d", w.Target.Table.Name(), w.Target.Table.Version())
	case *plan.Delete:
		head = fmt.Sprintf("Delete: %s version=%d", w.Target.Table.Name(), w.Target.Table.Version())
	case *plan.Update:
		head = fmt.Sprintf("Update: %s version=%d", w.Target.Table.Name(), w.Target.Table.Version())
	case *plan.CreateTable:
		head = "CreateTable: " + w.Name
	case *plan.IndexDDL:
		head = fmt.Sprintf("%s: %s on %s", w.Kind, w.Name, w.Table)
		if w.Kind == plan.CreateIndex {
			head += fmt.Sprintf(" (%s) using %s", w.Column, w.Type)
		}
		return head + "\n", nil // its source is an empty placeholder
	}
	var b strings.Builder
	b.WriteString(head + "\n")
	for _, line := range strings.SplitAfter(plan.Explain(Optimize(src)), "\n") {
		if line != "" {
			b.WriteString("  " + line)
		}
	}
	return b.String(), nil
}
