package substrait_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	extpb "github.com/substrait-io/substrait-protobuf/go/substraitpb/extensions"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/flightdpb"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

const testQuery = "SELECT name, qty + 1 AS q FROM t AT (VERSION => 2) WHERE score > 1 ORDER BY q DESC LIMIT 3"

func produce(t testing.TB, sql string) *pb.Plan {
	t.Helper()
	p, err := substrait.Produce(bindSQL(t, sql))
	require.NoError(t, err)
	return p
}

// relAt follows the single-input chain from the root n steps down.
func relAt(p *pb.Plan, n int) *pb.Rel {
	r := p.GetRelations()[0].GetRoot().GetInput()
	for range n {
		switch k := r.GetRelType().(type) {
		case *pb.Rel_Fetch:
			r = k.Fetch.GetInput()
		case *pb.Rel_Sort:
			r = k.Sort.GetInput()
		case *pb.Rel_Project:
			r = k.Project.GetInput()
		case *pb.Rel_Filter:
			r = k.Filter.GetInput()
		case *pb.Rel_Aggregate:
			r = k.Aggregate.GetInput()
		}
	}
	return r
}

func consume(p *pb.Plan) (plan.Node, error) {
	b, err := proto.Marshal(p)
	if err != nil {
		return nil, err
	}
	return substrait.Unmarshal(context.Background(), plantest.Standard(), b)
}

func TestConsumeErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *pb.Plan)
		kind   dberr.Kind
		msg    string
		is     error
	}{
		{"no relations", func(p *pb.Plan) { p.Relations = nil }, dberr.InvalidInput, "at plan: want exactly one relation", nil},
		{"undeclared function", func(p *pb.Plan) { p.Extensions = nil }, dberr.InvalidInput, "at root/fetch/sort/project/filter.condition: function reference", nil},
		{"field out of range", func(p *pb.Plan) {
			proj := relAt(p, 2).GetProject()
			proj.Expressions[0] = &pb.Expression{RexType: &pb.Expression_Selection{Selection: &pb.Expression_FieldReference{
				ReferenceType: &pb.Expression_FieldReference_DirectReference{DirectReference: &pb.Expression_ReferenceSegment{
					ReferenceType: &pb.Expression_ReferenceSegment_StructField_{StructField: &pb.Expression_ReferenceSegment_StructField{Field: 99}},
				}},
			}}}
		}, dberr.InvalidInput, "at root/fetch/sort/project.expressions[0]: field 99 out of range", nil},
		{"emit out of range", func(p *pb.Plan) {
			relAt(p, 2).GetProject().Common.EmitKind = &pb.RelCommon_Emit_{Emit: &pb.RelCommon_Emit{OutputMapping: []int32{42}}}
		}, dberr.InvalidInput, "at root/fetch/sort/project: emit refers to field 42", nil},
		{"missing input", func(p *pb.Plan) { relAt(p, 3).GetFilter().Input = nil }, dberr.InvalidInput, "at root/fetch/sort/project/filter: missing relation", nil},
		{"non-boolean filter", func(p *pb.Plan) {
			relAt(p, 3).GetFilter().Condition = &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_I32{I32: 1}}}}
		}, dberr.InvalidInput, "condition has type int32, want boolean", nil},
		{"bad base schema", func(p *pb.Plan) { relAt(p, 4).GetRead().BaseSchema.Names[0] = "other" }, dberr.InvalidInput, "at root/fetch/sort/project/filter/read: base schema", nil},
		{"bad projection", func(p *pb.Plan) {
			relAt(p, 4).GetRead().Projection.Select.StructItems[0].Field = 17
		}, dberr.InvalidInput, "projection selects field 17", nil},
		{"negative fetch", func(p *pb.Plan) {
			relAt(p, 0).GetFetch().OffsetMode = &pb.FetchRel_Offset{Offset: -4}
		}, dberr.InvalidInput, "at root/fetch: offset -4", nil},
		{"join", func(p *pb.Plan) {
			read := relAt(p, 4)
			relAt(p, 3).GetFilter().Input = &pb.Rel{RelType: &pb.Rel_Join{Join: &pb.JoinRel{Left: read, Right: read}}}
		}, dberr.NotImplemented, "Substrait join type JOIN_TYPE_UNSPECIFIED (at root/fetch/sort/project/filter/join)", nil},
		{"right semi join", func(p *pb.Plan) {
			read := relAt(p, 4)
			relAt(p, 3).GetFilter().Input = &pb.Rel{RelType: &pb.Rel_Join{Join: &pb.JoinRel{Left: read, Right: read, Type: pb.JoinRel_JOIN_TYPE_RIGHT_SEMI}}}
		}, dberr.NotImplemented, "JOIN_TYPE_RIGHT_SEMI", nil},
		{"set with one input", func(p *pb.Plan) {
			read := relAt(p, 4)
			relAt(p, 3).GetFilter().Input = &pb.Rel{RelType: &pb.Rel_Set{Set: &pb.SetRel{Inputs: []*pb.Rel{read}, Op: pb.SetRel_SET_OP_UNION_ALL}}}
		}, dberr.InvalidInput, "set operation with 1 inputs", nil},
		{"set of unspecified kind", func(p *pb.Plan) {
			read := relAt(p, 4)
			relAt(p, 3).GetFilter().Input = &pb.Rel{RelType: &pb.Rel_Set{Set: &pb.SetRel{Inputs: []*pb.Rel{read, read}}}}
		}, dberr.NotImplemented, "SET_OP_UNSPECIFIED", nil},
		{"foreign enhancement", func(p *pb.Plan) {
			enh, _ := anypb.New(wrapperspb.String("x"))
			relAt(p, 4).GetRead().AdvancedExtension.Enhancement = enh
		}, dberr.NotImplemented, "Substrait enhancement type.googleapis.com/google.protobuf.StringValue", nil},
		{"virtual table", func(p *pb.Plan) {
			relAt(p, 4).GetRead().ReadType = &pb.ReadRel_VirtualTable_{VirtualTable: &pb.ReadRel_VirtualTable{
				Expressions: []*pb.Expression_Nested_Struct{{}},
			}}
		}, dberr.InvalidInput, "row 0 has 0 values, the schema 6 columns", nil},
		{"missing table", func(p *pb.Plan) { relAt(p, 4).GetRead().GetNamedTable().Names = []string{"nope"} }, dberr.Catalog, "Table with name nope does not exist", catalog.ErrNoSuchTable},
		{"missing version", func(p *pb.Plan) {
			enh, _ := anypb.New(&flightdpb.LanceRead{Version: 40})
			relAt(p, 4).GetRead().AdvancedExtension.Enhancement = enh
		}, dberr.Catalog, "table t has no version 40", catalog.ErrNoSuchVersion},
		{"unknown extension function", func(p *pb.Plan) {
			p.ExtensionUrns = append(p.ExtensionUrns, &extpb.SimpleExtensionURN{ExtensionUrnAnchor: 77, Urn: "extension:acme:fns"})
			for _, e := range p.Extensions {
				e.GetExtensionFunction().ExtensionUrnReference = 77
			}
		}, dberr.NotImplemented, "Substrait function extension:acme:fns:gt", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := produce(t, testQuery)
			tc.mutate(p)
			_, err := consume(p)
			require.Error(t, err)
			var e *dberr.Error
			require.ErrorAs(t, err, &e, "want *dberr.Error, got %T: %v", err, err)
			require.Equal(t, tc.kind, e.Kind, err.Error())
			require.Contains(t, err.Error(), tc.msg)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
		})
	}
}

func TestConsumeGarbage(t *testing.T) {
	_, err := substrait.Unmarshal(context.Background(), plantest.Standard(), []byte{0xff, 0x01, 0x02})
	kind, ok := dberr.KindOf(err)
	require.True(t, ok)
	require.Equal(t, dberr.InvalidInput, kind)
}

// TestConsumePinnedVersion: the plan reads the version it was planned at, and a read
// without a pin reads the latest version.
func TestConsumePinnedVersion(t *testing.T) {
	p := produce(t, "SELECT id FROM t AT (VERSION => 1)")
	n, err := consume(p)
	require.NoError(t, err)
	require.Equal(t, uint64(1), n.Children()[0].(*plan.Scan).Table.Version())

	read := relAt(p, 1).GetRead()
	read.AdvancedExtension = nil
	read.BaseSchema = nil // the latest version has one more column
	n, err = consume(p)
	require.NoError(t, err)
	require.Equal(t, uint64(3), n.Children()[0].(*plan.Scan).Table.Version())

	// The pin may also sit on the NamedTable.
	enh, err := anypb.New(&flightdpb.LanceRead{Version: 2})
	require.NoError(t, err)
	read.GetNamedTable().AdvancedExtension = &extpb.AdvancedExtension{Enhancement: enh}
	n, err = consume(p)
	require.NoError(t, err)
	require.Equal(t, uint64(2), n.Children()[0].(*plan.Scan).Table.Version())
}

// TestConsumeURIOnly: older producers declare extensions by URI (Plan field 1, function
// declaration field 1), which today's protobuf only keeps as unknown fields. The consumer
// resolves functions by name and gets the same plan.
func TestConsumeURIOnly(t *testing.T) {
	p := produce(t, testQuery)
	want, err := consume(p)
	require.NoError(t, err)

	p.ExtensionUrns = nil
	var uri []byte
	uri = protowire.AppendTag(uri, 1, protowire.VarintType)
	uri = protowire.AppendVarint(uri, 1)
	uri = protowire.AppendTag(uri, 2, protowire.BytesType)
	uri = protowire.AppendString(uri, "https://github.com/substrait-io/substrait/blob/main/extensions/functions_comparison.yaml")
	var field []byte
	field = protowire.AppendTag(field, 1, protowire.BytesType)
	field = protowire.AppendBytes(field, uri)
	p.ProtoReflect().SetUnknown(field)
	for _, e := range p.Extensions {
		f := e.GetExtensionFunction()
		f.ExtensionUrnReference = 0
		f.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1))
	}
	got, err := consume(p)
	require.NoError(t, err)
	require.Equal(t, describe(want), describe(got))
}

// TestConsumeReadFilterOutsideProjection: a client ReadRel whose filter reads a column
// the projection drops still works; the column is read and projected away.
func TestConsumeReadFilterOutsideProjection(t *testing.T) {
	opt := optimize.Optimize(bindSQL(t, "SELECT name FROM t WHERE qty > 3"))
	p, err := substrait.Produce(opt)
	require.NoError(t, err)
	rel := relAt(p, 1)
	read := rel.GetRead()
	require.NotNil(t, read.GetFilter())
	read.Projection.Select.StructItems = read.Projection.Select.StructItems[:1] // name only
	p.Relations[0].GetRoot().Input = rel
	n, err := consume(p)
	require.NoError(t, err)
	require.Equal(t, "Project: name := name#0\n"+
		"  Scan: t version=3 columns=[name#1, qty#3] filter=gt(qty#1, 3)\n", plan.Explain(n))
	require.Equal(t, "schema: name utf8 null", plantest.SchemaString(n.Schema()))
}

func FuzzConsume(f *testing.F) {
	for _, sql := range []string{
		testQuery,
		"SELECT qty, count(*), sum(score) FROM t GROUP BY qty HAVING count(*) > 1",
		"SELECT CASE WHEN qty IN (1, 2) THEN CAST(id AS DOUBLE) ELSE score END, day >= DATE '2020-01-01' FROM t",
		"SELECT DISTINCT Id FROM Mixed AS m WHERE amount > 1.5 AND u = 3 OR flag IS NULL",
		"SELECT t.name, u.amount FROM t LEFT JOIN u ON t.id = u.t_id AND u.amount > t.score, Mixed",
		"SELECT id FROM t WHERE id NOT IN (SELECT t_id FROM u) AND EXISTS (SELECT 1 FROM u WHERE u.t_id = t.id)",
		"SELECT id, (SELECT max(amount) FROM u) FROM t UNION ALL SELECT 1, 2.5 EXCEPT SELECT id, amount FROM u",
		"SELECT * FROM (VALUES (1, 'a', DATE '2020-01-01' + INTERVAL 1 DAY)) v(a, b, c)",
		"SELECT lower(name) || 'x', date_part('year', day), string_agg(name, ',') FILTER (WHERE qty > 1) FROM t GROUP BY ALL",
	} {
		p := produce(f, sql)
		b, err := proto.Marshal(p)
		require.NoError(f, err)
		f.Add(b)
	}
	cat := plantest.Standard()
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := substrait.Unmarshal(context.Background(), cat, b)
		if err != nil {
			if _, ok := dberr.KindOf(err); !ok {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
			return
		}
		_ = plan.Explain(n)
		if _, err := substrait.Marshal(n); err != nil {
			if _, ok := dberr.KindOf(err); !ok {
				t.Fatalf("unclassified produce error %T: %v", err, err)
			}
		}
	})
}
