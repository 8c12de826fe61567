package substrait

import (
	"fmt"
	"strconv"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Substrait has neither a range table function nor UNNEST. flightd writes plan.Range as
// an ExtensionLeafRel and plan.Unnest as an ExtensionSingleRel, with Struct details:
//
//	{"flightd_rel": "range", "id": 0, "name": <column name>, "start": "<int64>",
//	 "stop": "<int64>", "step": "<int64>", "inclusive": <bool>, "empty": <bool>}
//	{"flightd_rel": "unnest", "id": 0, "lists": <n>, "names": [<element column names>]}
//
// Integers travel as decimal strings (Struct numbers are doubles). The unnest relation's
// input is a ProjectRel whose last n outputs are the lists; its output is that input
// then the n element columns, and its emit drops the list columns again.
const (
	kindRange  = "range"
	kindUnnest = "unnest"
)

// rangeRel writes r as an ExtensionLeafRel.
func (p *producer) rangeRel(r *plan.Range) (*pb.Rel, error) {
	detail, err := extensionDetail(map[string]any{
		detailKind: kindRange, "id": float64(0), "name": r.Schema().Field(0).Name,
		"start": strconv.FormatInt(r.Start, 10), "stop": strconv.FormatInt(r.Stop, 10),
		"step": strconv.FormatInt(r.Step, 10), "inclusive": r.Inclusive, "empty": r.Empty,
	})
	if err != nil {
		return nil, err
	}
	return &pb.Rel{RelType: &pb.Rel_ExtensionLeaf{ExtensionLeaf: &pb.ExtensionLeafRel{Common: common(nil, nil), Detail: detail}}}, nil
}

// unnestRel writes u as an ExtensionSingleRel over a projection of its input and lists.
func (p *producer) unnestRel(u *plan.Unnest) (*pb.Rel, error) {
	in := u.Input.Schema()
	w, n := in.NumFields(), len(u.Lists)
	exprs := make([]plan.Expr, 0, w+n)
	names := make([]string, 0, w+n)
	for i, f := range in.Fields() {
		exprs = append(exprs, &plan.ColumnRef{Index: i, Name: f.Name, DataType: f.Type, Null: f.Nullable})
		names = append(names, f.Name)
	}
	elems := make([]any, n)
	for i, l := range u.Lists {
		exprs = append(exprs, l)
		names = append(names, fmt.Sprintf("list%d", i))
		elems[i] = u.Schema().Field(w + i).Name
	}
	input, err := p.rel(plan.NewProject(u.Input, exprs, names))
	if err != nil {
		return nil, err
	}
	detail, err := extensionDetail(map[string]any{detailKind: kindUnnest, "id": float64(0), "lists": float64(n), "names": elems})
	if err != nil {
		return nil, err
	}
	emitMap := make([]int32, 0, w+n)
	for i := range w {
		emitMap = append(emitMap, int32(i))
	}
	for i := range n {
		emitMap = append(emitMap, int32(w+n+i))
	}
	single := &pb.ExtensionSingleRel{Common: common(nil, emitMap), Input: input, Detail: detail}
	return &pb.Rel{RelType: &pb.Rel_ExtensionSingle{ExtensionSingle: single}}, nil
}

// readRange reads a range leaf from its detail fields.
func readRange(fields map[string]*structpb.Value, path string) (plan.Node, error) {
	var vals [3]int64
	for i, k := range []string{"start", "stop", "step"} {
		v, err := strconv.ParseInt(fields[k].GetStringValue(), 10, 64)
		if err != nil {
			return nil, invalid(path, "range %s %q: %v", k, fields[k].GetStringValue(), err)
		}
		vals[i] = v
	}
	if vals[2] == 0 {
		return nil, invalid(path, "range step 0")
	}
	name := fields["name"].GetStringValue()
	if name == "" {
		name = "range"
	}
	return plan.NewRange(name, vals[0], vals[1], vals[2], fields["inclusive"].GetBoolValue(), fields["empty"].GetBoolValue()), nil
}

// extensionSingle reads an unnest.
func (c *consumer) extensionSingle(r *pb.ExtensionSingleRel, path string) (plan.Node, error) {
	kind, _, fields, err := readDetail(r.GetDetail(), path)
	if err != nil {
		return nil, err
	}
	if kind != kindUnnest {
		return nil, dberr.NotSupported(fmt.Sprintf("extension single relation %q (at %s)", kind, path))
	}
	in, err := c.rel(r.GetInput(), path+"/input")
	if err != nil {
		return nil, err
	}
	n := int(fields["lists"].GetNumberValue())
	names := fields["names"].GetListValue().GetValues()
	w := in.Schema().NumFields() - n
	if n <= 0 || w < 0 || len(names) != n {
		return nil, invalid(path, "unnest of %d lists over %d columns with %d names", n, in.Schema().NumFields(), len(names))
	}
	lists := make([]plan.Expr, n)
	elemNames := make([]string, n)
	for i := range n {
		f := in.Schema().Field(w + i)
		if plan.ListElem(f.Type).ID() == 0 && f.Type.ID() != 0 {
			return nil, invalid(path, "unnest of %s", f.Type)
		}
		lists[i] = &plan.ColumnRef{Index: w + i, Name: f.Name, DataType: f.Type, Null: f.Nullable}
		elemNames[i] = names[i].GetStringValue()
	}
	return emit(plan.NewUnnest(in, lists, elemNames), r.GetCommon(), path)
}
