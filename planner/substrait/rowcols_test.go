package substrait_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/substrait-io/substrait-go/v8/extensions"
	sgplan "github.com/substrait-io/substrait-go/v8/plan"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

// TestRoundTripRowColumns: plans reading the hidden _rowid/_rowaddr columns keep them
// through Substrait, bound and optimized, and substrait-go accepts the plans.
func TestRoundTripRowColumns(t *testing.T) {
	require.NoError(t, loadOwnExtension())
	for _, sql := range []string{
		"SELECT _rowid, _rowaddr, * FROM u",
		"SELECT id FROM u WHERE _rowaddr > 5",
		"SELECT _rowaddr, '_rowid' AS s FROM u",
		"SELECT t._rowid, u._rowaddr FROM t JOIN u ON t.id = u.t_id WHERE u._rowid < t._rowaddr",
		"SELECT count(*), max(_rowid) FROM u",
	} {
		t.Run(sql, func(t *testing.T) {
			bound := bindSQL(t, sql)
			require.Equal(t, describe(bound), describe(roundTrip(t, bound)))
			opt := optimize.Optimize(bound)
			require.Equal(t, describe(opt), describe(roundTrip(t, opt)))
			for _, p := range []plan.Node{bound, opt} {
				pp, err := substrait.Produce(p)
				require.NoError(t, err)
				_, err = sgplan.FromProto(pp, extensions.GetDefaultCollectionWithNoError())
				require.NoError(t, err, "substrait-go rejects the plan")
			}
		})
	}
}

// rowRead produces the optimized plan of sql and returns it with its ReadRel (depth steps
// below the root).
func rowRead(t *testing.T, sql string, depth int) (*pb.Plan, *pb.ReadRel) {
	t.Helper()
	p, err := substrait.Produce(optimize.Optimize(bindSQL(t, sql)))
	require.NoError(t, err)
	read := relAt(p, depth).GetRead()
	require.NotNil(t, read)
	return p, read
}

// TestConsumeRowColumnsAnyOrder: a client read may put the row columns anywhere in its
// projection; the scan reads them after the table's columns and a projection restores the
// read's order.
func TestConsumeRowColumnsAnyOrder(t *testing.T) {
	p, read := rowRead(t, "SELECT _rowid, _rowaddr, id FROM u WHERE _rowid > 2", 1)
	require.Equal(t, []string{"id", "t_id", "name", "amount", "_rowid", "_rowaddr"}, read.GetBaseSchema().GetNames())
	items := read.GetProjection().GetSelect().GetStructItems()
	items[0].Field, items[1].Field, items[2].Field = 5, 0, 5 // _rowaddr, id, _rowaddr
	p.Relations[0].GetRoot().Input = relAt(p, 1)
	p.Relations[0].GetRoot().Names = []string{"a", "b", "c"}
	n, err := consume(p)
	require.NoError(t, err)
	require.Equal(t, "Project: a := _rowaddr#2, b := id#0, c := _rowaddr#2\n"+
		"  Scan: u version=1 columns=[id#0, _rowid, _rowaddr] filter=gt(_rowid#1, 2)\n", plan.Explain(n))
	require.Equal(t, "schema: a uint64, b int64, c uint64", plantest.SchemaString(n.Schema()))
}

// TestConsumeRowColumnsBadBaseSchema: after the table's columns a base schema may name only
// _rowid and then _rowaddr.
func TestConsumeRowColumnsBadBaseSchema(t *testing.T) {
	for _, names := range [][]string{
		{"id", "t_id", "name", "amount", "_rowaddr", "_rowid"},
		{"id", "t_id", "name", "amount", "_rowid", "other"},
		{"id", "t_id", "name", "amount", "_rowid", "_rowid"},
	} {
		p, read := rowRead(t, "SELECT _rowid, _rowaddr FROM u", 1)
		read.BaseSchema.Names = names
		_, err := consume(p)
		require.ErrorContains(t, err, "does not match table u", "%v", names)
	}
}
