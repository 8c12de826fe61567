package planner_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// writable is plantest's catalog with the write capabilities (planning only checks them).
type writable struct{ *plantest.Catalog }

func (writable) CreateTable(context.Context, string, *arrow.Schema, []arrow.RecordBatch, catalog.CreateMode) (uint64, error) {
	return 0, nil
}
func (writable) Append(context.Context, string, []arrow.RecordBatch) (uint64, error) { return 0, nil }
func (writable) DeleteRows(context.Context, string, uint64, []uint64) (uint64, error) {
	return 0, nil
}
func (writable) UpdateRows(context.Context, string, uint64, []uint64, []arrow.RecordBatch) (uint64, error) {
	return 0, nil
}
func (writable) CreateIndex(context.Context, string, catalog.IndexSpec) (catalog.IndexChange, error) {
	return catalog.IndexChange{}, nil
}
func (writable) DropIndex(context.Context, string, string) (catalog.IndexChange, error) {
	return catalog.IndexChange{}, nil
}
func (writable) OptimizeIndex(context.Context, string, string, memory.Allocator) (catalog.IndexChange, error) {
	return catalog.IndexChange{}, nil
}
func (writable) TablesWithIndex(context.Context, string) ([]string, error) { return nil, nil }

// TestPlanWrite: a write plans to Prepared.Write (its source optimized), with no result
// columns and no Substrait; with placeholders, Write waits for values.
func TestPlanWrite(t *testing.T) {
	ctx := context.Background()
	p := planner.New(writable{plantest.Standard()})

	pr, err := p.PlanSQL(ctx, "DELETE FROM t WHERE qty > 3")
	require.NoError(t, err)
	require.True(t, pr.IsWrite)
	require.Nil(t, pr.Substrait)
	require.Zero(t, pr.Schema.NumFields())
	require.Zero(t, pr.Params.NumFields())
	require.IsType(t, &plan.Delete{}, pr.Write)
	src, _ := plan.WriteSource(pr.Write)
	require.Equal(t, "Project: _rowaddr := _rowaddr#1\n  Scan: t version=3 columns=[qty#3, _rowaddr] filter=gt(qty#0, 3)\n", plan.Explain(src),
		"the source is optimized: pruned, filter pushed into the scan")

	pr, err = p.PlanSQL(ctx, "UPDATE t SET qty = ? WHERE id = ?")
	require.NoError(t, err)
	require.True(t, pr.IsWrite)
	require.Nil(t, pr.Write)
	require.Equal(t, "schema: $1 int32 null, $2 int64 null", plantest.SchemaString(pr.Params))

	pr, err = p.PlanSQLWithParams(ctx, "UPDATE t SET qty = ? WHERE id = ?", []scalar.Scalar{scalar.NewInt64Scalar(1), scalar.NewInt64Scalar(2)})
	require.NoError(t, err)
	require.IsType(t, &plan.Update{}, pr.Write)

	text, err := p.Explain(ctx, "EXPLAIN INSERT INTO u (id) SELECT id FROM t")
	require.NoError(t, err)
	require.Equal(t, "Insert: u version=1\n"+
		"  Project: id := id#0, t_id := NULL, name := NULL, amount := NULL\n"+
		"    Project: id := id#0\n"+
		"      Scan: t version=3 columns=[id#0]\n", text)

	text, err = p.Explain(ctx, "EXPLAIN CREATE INDEX t_id ON t (id) USING BITMAP")
	require.NoError(t, err)
	require.Equal(t, "CREATE INDEX: t_id on t (id) using BITMAP\n", text)

	_, err = p.PlanSQL(ctx, "EXPLAIN ANALYZE DELETE FROM t")
	kind, ok := dberr.KindOf(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, dberr.NotImplemented, kind)

	res, err := planner.CountResult(7)
	require.NoError(t, err)
	require.Equal(t, plan.CountSchema, res.Schema)
	n, err := p.Logical(ctx, res.Substrait)
	require.NoError(t, err)
	require.Equal(t, "Values: columns=[Count] rows=[(7)]\n", plan.Explain(n))
}
