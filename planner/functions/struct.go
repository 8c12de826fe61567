package functions

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Struct functions: struct_pack(x, ...) builds a struct from its arguments (the names live
// in the call's type: the binder and the Substrait consumer set them), struct_extract(s,
// 'name') reads one field (NULL when s is NULL).
func init() {
	genericRules["struct_pack"], Scalars["struct_pack"] = structPackRule, Generic
	genericRules["struct_extract"], Scalars["struct_extract"] = structExtractRule, Generic
}

// RowFieldName is the name of field i (0-based) of an unnamed struct, row(x, y) or
// (x, y): DuckDB's TUPLE, which it hands to Arrow with these names.
func RowFieldName(i int) string { return fmt.Sprintf("element%d", i+1) }

// IsRowStruct reports whether t is an unnamed struct (every field named RowFieldName).
func IsRowStruct(t *arrow.StructType) bool {
	for i, f := range t.Fields() {
		if f.Name != RowFieldName(i) {
			return false
		}
	}
	return true
}

// StructPack builds struct_pack(name := value, ...): a struct literal when every value is a
// constant, else a struct_pack call. Names must be distinct (case-insensitively, as DuckDB).
func StructPack(names []string, values []plan.Expr) (plan.Expr, error) {
	if len(names) == 0 || len(names) != len(values) {
		return nil, dberr.New(dberr.Binder, "struct_pack needs at least one named argument")
	}
	seen := map[string]bool{}
	fields := make([]arrow.Field, len(values))
	consts := make([]scalar.Scalar, 0, len(values))
	for i, v := range values {
		key := strings.ToLower(names[i])
		if seen[key] {
			return nil, dberr.New(dberr.Binder, "Duplicate struct entry name \"%s\"", names[i])
		}
		seen[key] = true
		fields[i] = arrow.Field{Name: names[i], Type: v.Type(), Nullable: true}
		if lit, ok := v.(*plan.Literal); ok {
			consts = append(consts, lit.Value)
		}
	}
	st := arrow.StructOf(fields...)
	if len(consts) == len(values) {
		s := scalar.NewStructScalar(consts, st)
		return &plan.Literal{Value: s}, nil
	}
	return &plan.Call{Func: "struct_pack", Args: values, DataType: st}, nil
}

// structPackRule types struct_pack over unnamed arguments (the Substrait consumer's call;
// the names come back with the enclosing rename): fields element1, element2, ...
func structPackRule(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) == 0 {
		return nil, noMatch(name, args)
	}
	names := make([]string, len(args))
	for i := range names {
		names[i] = RowFieldName(i)
	}
	fields := make([]arrow.Field, len(args))
	for i, a := range args {
		fields[i] = arrow.Field{Name: names[i], Type: a.Type(), Nullable: true}
	}
	return &plan.Call{Func: name, Args: args, DataType: arrow.StructOf(fields...)}, nil
}

// StructFieldIndex finds field key of t: a name (exact, then case-insensitive, as DuckDB)
// or, for an unnamed struct, a 1-based position.
func StructFieldIndex(t *arrow.StructType, key scalar.Scalar) (int, error) {
	if n, ok := IntValue(key); ok {
		if !IsRowStruct(t) {
			return 0, dberr.New(dberr.Binder, "struct_extract with an integer key can only be used on unnamed structs, use a string key instead")
		}
		if n < 1 || int(n) > t.NumFields() {
			return 0, dberr.New(dberr.Binder, "Tuple index %d out of range for %d entries", n, t.NumFields())
		}
		return int(n) - 1, nil
	}
	if !key.IsValid() || !IsString(key.DataType()) {
		return 0, dberr.New(dberr.Binder, "Key name for struct_extract needs to be a constant string")
	}
	name := key.String()
	if i, ok := t.FieldIdx(name); ok {
		return i, nil
	}
	found := -1
	for i, f := range t.Fields() {
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				return 0, dberr.New(dberr.Binder, "Ambiguous reference to struct field \"%s\"", name)
			}
			found = i
		}
	}
	if found < 0 {
		cands := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			cands[i] = f.Name
		}
		return 0, dberr.New(dberr.Binder, "Could not find key \"%s\" in struct (candidate entries: %s)", name, strings.Join(cands, ", "))
	}
	return found, nil
}

// structExtractRule types struct_extract(s, key): key a constant string (a field name)
// or, for unnamed structs, a constant position. The call's second argument becomes the
// exact field name; a constant struct folds to its field.
func structExtractRule(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	st, ok := args[0].Type().(*arrow.StructType)
	key, isLit := args[1].(*plan.Literal)
	if !ok || !isLit {
		return nil, noMatch(name, args)
	}
	i, err := StructFieldIndex(st, key.Value)
	if err != nil {
		return nil, err
	}
	f := st.Field(i)
	canon := &plan.Literal{Value: scalar.NewStringScalar(f.Name)}
	return &plan.Call{Func: name, Args: []plan.Expr{args[0], canon}, DataType: f.Type, Null: true}, nil
}

// StructExtract builds struct_extract(s, key), folding a constant struct or a
// struct_pack call to its field.
func StructExtract(s, key plan.Expr) (plan.Expr, error) {
	c, err := structExtractRule("struct_extract", []plan.Expr{s, key})
	if err != nil {
		return nil, err
	}
	if pack, ok := s.(*plan.Call); ok && pack.Func == "struct_pack" {
		i, _ := pack.DataType.(*arrow.StructType).FieldIdx(c.Args[1].(*plan.Literal).Value.String())
		return pack.Args[i], nil // a packed struct is never NULL
	}
	lit, ok := s.(*plan.Literal)
	if !ok {
		return c, nil
	}
	if !lit.Value.IsValid() {
		return &plan.Literal{Value: scalar.MakeNullScalar(c.DataType)}, nil
	}
	st := lit.Value.(*scalar.Struct)
	i, _ := st.Type.(*arrow.StructType).FieldIdx(c.Args[1].(*plan.Literal).Value.String())
	return &plan.Literal{Value: st.Value[i]}, nil
}

// commonStruct is the common type of two struct types as DuckDB unifies them (for
// comparisons, CASE, COALESCE, UNION): an unnamed struct (row(...)) pairs with a struct of
// as many fields by position and takes the other's names; two named structs unify by name
// (case-insensitively): a's fields in a's order and names, then b's fields a lacks, each
// at the common type of its fields. ok is false for an unnamed struct of another field
// count or fields without a common type.
func commonStruct(a, b *arrow.StructType) (arrow.DataType, bool) {
	if IsRowStruct(a) || IsRowStruct(b) {
		if a.NumFields() != b.NumFields() {
			return nil, false
		}
		named := a
		if IsRowStruct(a) {
			named = b
		}
		fields := make([]arrow.Field, a.NumFields())
		for i := range fields {
			t, ok := CommonType(a.Field(i).Type, b.Field(i).Type)
			if !ok {
				return nil, false
			}
			fields[i] = arrow.Field{Name: named.Field(i).Name, Type: t, Nullable: true}
		}
		return arrow.StructOf(fields...), true
	}
	fields := make([]arrow.Field, a.NumFields(), a.NumFields()+b.NumFields())
	for i, f := range a.Fields() {
		fields[i] = arrow.Field{Name: f.Name, Type: f.Type, Nullable: true}
	}
	for _, fb := range b.Fields() {
		j := fieldByName(a, fb.Name)
		if j < 0 {
			fields = append(fields, arrow.Field{Name: fb.Name, Type: fb.Type, Nullable: true})
			continue
		}
		t, ok := CommonType(fields[j].Type, fb.Type)
		if !ok {
			return nil, false
		}
		fields[j].Type = t
	}
	return arrow.StructOf(fields...), true
}

// foldStructCast casts a constant struct to another struct type by field name, as DuckDB
// does: target fields the source lacks are NULL, and at least one name must match. ok is
// false when a field's cast is left to run time.
func foldStructCast(lit *plan.Literal, to arrow.DataType) (plan.Expr, bool, error) {
	from, fok := lit.Value.DataType().(*arrow.StructType)
	target, tok := to.(*arrow.StructType)
	if !fok || !tok {
		return nil, false, nil
	}
	if err := checkStructCast(from, target); err != nil {
		return nil, false, err
	}
	src := lit.Value.(*scalar.Struct)
	vals := make([]scalar.Scalar, target.NumFields())
	for i, f := range target.Fields() {
		j := fieldByName(from, f.Name)
		if IsRowStruct(from) && from.NumFields() == target.NumFields() {
			j = i
		}
		if j < 0 {
			vals[i] = scalar.MakeNullScalar(f.Type)
			continue
		}
		c, err := Cast(&plan.Literal{Value: src.Value[j]}, f.Type)
		if err != nil {
			return nil, false, err
		}
		cl, folded := c.(*plan.Literal)
		if !folded {
			return nil, false, nil
		}
		vals[i] = cl.Value
	}
	return &plan.Literal{Value: scalar.NewStructScalar(vals, target)}, true, nil
}

// fieldByName is the position of the field of t named name (case-insensitively), or -1.
func fieldByName(t *arrow.StructType, name string) int {
	for i, f := range t.Fields() {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// checkStructCast reports DuckDB's error for a struct cast without a common field name.
func checkStructCast(from, to *arrow.StructType) error {
	if IsRowStruct(from) && from.NumFields() == to.NumFields() {
		return nil
	}
	for _, f := range to.Fields() {
		if fieldByName(from, f.Name) >= 0 {
			return nil
		}
	}
	return dberr.New(dberr.Binder, "STRUCT to STRUCT cast must have at least one matching member, inputs are (%s) and (%s)", from, to)
}

// CheckStructCast is checkStructCast for the binder.
func CheckStructCast(from, to *arrow.StructType) error { return checkStructCast(from, to) }
