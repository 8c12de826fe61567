package substrait

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Substrait has no recursive CTE. flightd writes plan.RecursiveCTE as an ExtensionMultiRel
// whose inputs are the anchor and the step, and plan.WorkingTable as an ExtensionLeafRel;
// the detail of both is a google.protobuf.Struct:
//
//	{"flightd_rel": "recursive_cte", "id": <number>, "all": <bool>}
//	{"flightd_rel": "working_table", "id": <number>}
//
// A working table must sit inside the step of the recursive CTE with its id; its columns
// are the anchor's, all nullable.
const (
	detailKind       = "flightd_rel"
	kindRecursiveCTE = "recursive_cte"
	kindWorkingTable = "working_table"
)

func extensionDetail(fields map[string]any) (*anypb.Any, error) {
	s, err := structpb.NewStruct(fields)
	if err != nil {
		return nil, fmt.Errorf("extension relation detail: %w", err)
	}
	return anypb.New(s)
}

// recursiveCTE writes r as an ExtensionMultiRel.
func (p *producer) recursiveCTE(r *plan.RecursiveCTE) (*pb.Rel, error) {
	anchor, err := p.rel(r.Anchor)
	if err != nil {
		return nil, err
	}
	step, err := p.rel(r.Step)
	if err != nil {
		return nil, err
	}
	detail, err := extensionDetail(map[string]any{detailKind: kindRecursiveCTE, "id": float64(r.ID), "all": r.All})
	if err != nil {
		return nil, err
	}
	multi := &pb.ExtensionMultiRel{Common: common(nil, nil), Inputs: []*pb.Rel{anchor, step}, Detail: detail}
	return &pb.Rel{RelType: &pb.Rel_ExtensionMulti{ExtensionMulti: multi}}, nil
}

// workingTable writes w as an ExtensionLeafRel.
func (p *producer) workingTable(w *plan.WorkingTable) (*pb.Rel, error) {
	detail, err := extensionDetail(map[string]any{detailKind: kindWorkingTable, "id": float64(w.ID)})
	if err != nil {
		return nil, err
	}
	return &pb.Rel{RelType: &pb.Rel_ExtensionLeaf{ExtensionLeaf: &pb.ExtensionLeafRel{Common: common(nil, nil), Detail: detail}}}, nil
}

// extensionDetail reads the Struct detail of a flightd extension relation.
func readDetail(a *anypb.Any, path string) (kind string, id int64, fields map[string]*structpb.Value, err error) {
	var s structpb.Struct
	if a == nil || a.UnmarshalTo(&s) != nil {
		return "", 0, nil, dberr.NotSupported(fmt.Sprintf("extension relation with detail %q (at %s)", a.GetTypeUrl(), path))
	}
	fields = s.GetFields()
	kind = fields[detailKind].GetStringValue()
	idv := fields["id"].GetNumberValue()
	if kind == "" || idv != float64(int64(idv)) {
		return "", 0, nil, dberr.NotSupported(fmt.Sprintf("extension relation with detail %v (at %s)", s.AsMap(), path))
	}
	return kind, int64(idv), fields, nil
}

// extensionMulti reads a recursive CTE.
func (c *consumer) extensionMulti(r *pb.ExtensionMultiRel, path string) (plan.Node, error) {
	kind, id, fields, err := readDetail(r.GetDetail(), path)
	if err != nil {
		return nil, err
	}
	if kind != kindRecursiveCTE {
		return nil, dberr.NotSupported(fmt.Sprintf("extension multi relation %q (at %s)", kind, path))
	}
	if len(r.GetInputs()) != 2 {
		return nil, invalid(path, "recursive CTE with %d inputs, want 2", len(r.GetInputs()))
	}
	anchor, err := c.rel(r.GetInputs()[0], path+"/inputs[0]")
	if err != nil {
		return nil, err
	}
	if c.working == nil {
		c.working = map[int64]*arrow.Schema{}
	}
	if _, dup := c.working[id]; dup {
		return nil, invalid(path, "recursive CTE id %d used twice", id)
	}
	c.working[id] = anchor.Schema()
	defer delete(c.working, id)
	step, err := c.rel(r.GetInputs()[1], path+"/inputs[1]")
	if err != nil {
		return nil, err
	}
	if err := sameTypes(anchor.Schema(), step.Schema()); err != nil {
		return nil, invalid(path, "recursive CTE: %v", err)
	}
	return emit(plan.NewRecursiveCTE(anchor, step, fields["all"].GetBoolValue(), id), r.GetCommon(), path)
}

// extensionLeaf reads a working table.
func (c *consumer) extensionLeaf(r *pb.ExtensionLeafRel, path string) (plan.Node, error) {
	kind, id, fields, err := readDetail(r.GetDetail(), path)
	if err != nil {
		return nil, err
	}
	if kind == kindRange { // table_func.go
		n, err := readRange(fields, path)
		if err != nil {
			return nil, err
		}
		return emit(n, r.GetCommon(), path)
	}
	if kind != kindWorkingTable {
		return nil, dberr.NotSupported(fmt.Sprintf("extension leaf relation %q (at %s)", kind, path))
	}
	schema, ok := c.working[id]
	if !ok {
		return nil, invalid(path, "working table %d outside the step of its recursive CTE", id)
	}
	return emit(plan.NewWorkingTable(id, schema), r.GetCommon(), path)
}

// sameTypes checks that two schemas have the same column types.
func sameTypes(a, b *arrow.Schema) error {
	if a.NumFields() != b.NumFields() {
		return fmt.Errorf("%d columns against %d", a.NumFields(), b.NumFields())
	}
	for i := range a.NumFields() {
		if !arrow.TypeEqual(a.Field(i).Type, b.Field(i).Type) {
			return fmt.Errorf("column %d is %s against %s", i, a.Field(i).Type, b.Field(i).Type)
		}
	}
	return nil
}
