package bind

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// bindStructPack binds {'a': x, ...} and struct_pack(a := x, ...).
func (eb *exprBinder) bindStructPack(e *ast.StructPack) (plan.Expr, error) {
	vals := make([]plan.Expr, len(e.Values))
	for i, v := range e.Values {
		x, err := eb.bind(v)
		if err != nil {
			return nil, err
		}
		vals[i] = x
	}
	return functions.StructPack(e.Names, vals)
}

// fieldRef binds a dotted name that is not a column as DuckDB does: the longest prefix
// that names a column, then struct fields (s.a, t.s.a, s.a.b). ok is false when no
// prefix is a struct column with those fields; the caller then reports its own error.
func (eb *exprBinder) fieldRef(e *ast.ColumnRef) (plan.Expr, bool) {
	for k := len(e.Parts) - 1; k >= 1; k-- {
		col, err := eb.scope.resolve(&ast.ColumnRef{Pos: e.Pos, Parts: e.Parts[:k]}, eb.clause)
		if err != nil || col.Type().ID() != arrow.STRUCT {
			continue
		}
		var out = col
		for _, name := range e.Parts[k:] {
			out, err = functions.StructExtract(out, &plan.Literal{Value: scalar.NewStringScalar(name)})
			if err != nil {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// bindStructFunc binds the struct functions: row(x, ...), struct_pack without names (an
// error, as in DuckDB), struct_extract(s, key) and the subscripts s[key] and l[i]
// (array_extract, list_extract). ok is false for other functions.
func (eb *exprBinder) bindStructFunc(e *ast.FuncCall) (plan.Expr, bool, error) {
	switch e.Name {
	case "row":
		if len(e.Args) == 0 {
			return nil, true, dberr.New(dberr.Binder, "Can't pack nothing into a struct")
		}
		names := make([]string, len(e.Args))
		for i := range names {
			names[i] = functions.RowFieldName(i)
		}
		out, err := eb.bindStructPack(&ast.StructPack{Pos: e.Pos, Names: names, Values: e.Args})
		return out, true, err
	case "struct_pack":
		return nil, true, dberr.New(dberr.Binder, "struct_pack needs named arguments (name := value)")
	case "unnest":
		out, err := eb.bindUnnest(e) // unnest.go
		return out, true, err
	case "struct_extract", "array_extract", "list_extract":
		out, err := eb.bindExtract(e)
		return out, true, err
	}
	return nil, false, nil
}

// bindExtract binds struct_extract(s, key) and the subscripts s['a'], s[1] (unnamed
// structs) and l[i] (list_extract).
func (eb *exprBinder) bindExtract(e *ast.FuncCall) (plan.Expr, error) {
	if len(e.Args) != 2 {
		return nil, dberr.New(dberr.Binder, "%s takes two arguments", e.Name)
	}
	x, err := eb.bind(e.Args[0])
	if err != nil {
		return nil, err
	}
	key, err := eb.bind(e.Args[1])
	if err != nil {
		return nil, err
	}
	switch x.Type().ID() {
	case arrow.STRUCT:
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		if e.Name != "struct_extract" {
			return stringSubscript(x, key) // slice.go
		}
		return nil, dberr.New(dberr.Binder, "struct_extract can only be used on a struct, not %s", x.Type())
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST:
		if e.Name != "struct_extract" {
			return functions.NewCall("list_extract", []plan.Expr{x, key})
		}
		fallthrough
	default:
		if e.Name == "struct_extract" {
			return nil, dberr.New(dberr.Binder, "struct_extract can only be used on a struct, not %s", x.Type())
		}
		return nil, dberr.NotSupported("subscripts of " + x.Type().String() + " values")
	}
	if _, ok := key.(*plan.Literal); !ok {
		return nil, dberr.New(dberr.Binder, "Key name for struct_extract needs to be a constant string")
	}
	return functions.StructExtract(x, key)
}

// bindSubscript binds x.name (struct_extract) and x[i] (array_extract).
func (eb *exprBinder) bindSubscript(e *ast.Subscript) (plan.Expr, error) {
	if e.Index == nil {
		key := &ast.Literal{Pos: e.Pos, Kind: ast.LitString, Text: e.Field}
		return eb.bindExtract(&ast.FuncCall{Pos: e.Pos, Name: "struct_extract", Args: []ast.Expr{e.X, key}})
	}
	return eb.bindExtract(&ast.FuncCall{Pos: e.Pos, Name: "array_extract", Args: []ast.Expr{e.X, e.Index}})
}

// structTypeFromName maps STRUCT(name type, ...) to an Arrow struct of nullable fields.
func structTypeFromName(tn ast.TypeName) (arrow.DataType, error) {
	if len(tn.Fields) == 0 {
		return nil, dberr.New(dberr.Parser, "a STRUCT type needs at least one field")
	}
	fields := make([]arrow.Field, len(tn.Fields))
	seen := map[string]bool{}
	for i, f := range tn.Fields {
		t, err := typeFromName(f.Type)
		if err != nil {
			return nil, err
		}
		if seen[f.Name] {
			return nil, dberr.New(dberr.Binder, "Duplicate struct entry name \"%s\"", f.Name)
		}
		seen[f.Name] = true
		fields[i] = arrow.Field{Name: f.Name, Type: t, Nullable: true}
	}
	return arrow.StructOf(fields...), nil
}

// castStruct casts a struct to another struct type (functions.CastStruct).
func castStruct(x plan.Expr, to *arrow.StructType, try bool) (plan.Expr, error) {
	return functions.CastStruct(x, to, try)
}
