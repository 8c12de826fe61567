package substrait

import (
	"fmt"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/flightdpb"
)

// The index part of a scan travels in LanceRead.index (proto/flightd/v1): a predicate tree
// whose operands are serialized Substrait literals. catalog.IndexOp and
// flightdpb.IndexPredicate_Op share their numbers; kinds are mapped below.

var indexKinds = map[catalog.IndexExprKind]flightdpb.IndexPredicate_Kind{
	catalog.IndexPred: flightdpb.IndexPredicate_KIND_COMPARISON,
	catalog.IndexAnd:  flightdpb.IndexPredicate_KIND_AND,
	catalog.IndexOr:   flightdpb.IndexPredicate_KIND_OR,
	catalog.IndexNot:  flightdpb.IndexPredicate_KIND_NOT,
}

// indexFilterProto encodes a scan's index filter.
func indexFilterProto(f *catalog.IndexFilter) (*flightdpb.IndexFilter, error) {
	p, err := indexPredicateProto(f.Expr)
	if err != nil {
		return nil, err
	}
	return &flightdpb.IndexFilter{Predicate: p, Explain: f.Explain}, nil
}

func indexPredicateProto(e *catalog.IndexExpr) (*flightdpb.IndexPredicate, error) {
	if err := e.Validate(); err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "encode index filter")
	}
	out := &flightdpb.IndexPredicate{Kind: indexKinds[e.Kind]}
	if e.Kind == catalog.IndexPred {
		out.Column, out.Op = int32(e.Column), flightdpb.IndexPredicate_Op(e.Op)
		for _, v := range e.Values {
			lit, err := literal(v)
			if err != nil {
				return nil, err
			}
			b, err := proto.Marshal(lit)
			if err != nil {
				return nil, dberr.Wrap(dberr.Internal, err, "encode index filter literal")
			}
			out.Values = append(out.Values, b)
		}
		return out, nil
	}
	for _, a := range e.Args {
		p, err := indexPredicateProto(a)
		if err != nil {
			return nil, err
		}
		out.Args = append(out.Args, p)
	}
	return out, nil
}

// indexFilterOf decodes LanceRead.index for a table of ncols columns.
func indexFilterOf(f *flightdpb.IndexFilter, ncols int, path string) (*catalog.IndexFilter, error) {
	e, err := indexExprOf(f.GetPredicate(), ncols, path)
	if err != nil {
		return nil, err
	}
	return &catalog.IndexFilter{Expr: e, Explain: f.GetExplain()}, nil
}

func indexExprOf(p *flightdpb.IndexPredicate, ncols int, path string) (*catalog.IndexExpr, error) {
	if p == nil {
		return nil, invalid(path, "index filter without a predicate")
	}
	e := &catalog.IndexExpr{}
	for k, pk := range indexKinds {
		if pk == p.GetKind() {
			e.Kind = k
		}
	}
	if e.Kind == catalog.IndexPred {
		e.Column, e.Op = int(p.GetColumn()), catalog.IndexOp(p.GetOp())
		if e.Column >= ncols {
			return nil, invalid(path, "index filter column %d of %d", e.Column, ncols)
		}
		for i, b := range p.GetValues() {
			lit := &pb.Expression_Literal{}
			if err := proto.Unmarshal(b, lit); err != nil {
				return nil, invalid(path, "index filter value %d: %v", i, err)
			}
			v, err := scalarOf(lit, fmt.Sprintf("%s.values[%d]", path, i))
			if err != nil {
				return nil, err
			}
			e.Values = append(e.Values, v)
		}
	}
	for i, a := range p.GetArgs() {
		x, err := indexExprOf(a, ncols, fmt.Sprintf("%s.args[%d]", path, i))
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, x)
	}
	if err := e.Validate(); err != nil {
		return nil, invalid(path, "%v", err)
	}
	return e, nil
}
