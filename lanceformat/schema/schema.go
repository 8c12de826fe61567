// Package schema is the Lance schema: the tree of fields with their dataset-wide ids, built
// from the flat pre-order lance.file.Field list that manifests and data files carry, and
// converted to and from Arrow schemas.
package schema

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ErrBadSchema classifies field lists that do not form a valid schema tree.
var ErrBadSchema = errors.New("bad lance schema")

// maxFields caps the number of fields a schema may have, so hostile input cannot make the
// reader allocate without bound.
const maxFields = 1 << 20

// Schema is a Lance schema: top-level fields, each possibly with children.
type Schema struct {
	Fields   []*Field
	Metadata map[string]string
}

// Field is one field of a Lance schema. Type is the full Arrow type, including children for
// nested types; Children holds the Lance child fields (struct members, the list item) with
// their own ids. Fixed-size lists have no child field.
type Field struct {
	ID       int32
	ParentID int32
	Name     string
	Type     arrow.DataType
	Nullable bool
	Metadata map[string]string
	Children []*Field

	// logical is the logical type string the field was read from (or will be written as).
	logical string
}

// LogicalType is the Lance logical type string of the field (§4.2).
func (f *Field) LogicalType() string { return f.logical }

// IsList reports whether the field is a list or large list.
func (f *Field) IsList() bool {
	id := f.Type.ID()
	return id == arrow.LIST || id == arrow.LARGE_LIST
}

// IsStruct reports whether the field is a struct.
func (f *Field) IsStruct() bool { return f.Type.ID() == arrow.STRUCT }

// ToArrow returns the Arrow field.
func (f *Field) ToArrow() arrow.Field {
	return arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable, Metadata: arrowMeta(f.Metadata)}
}

// ToArrow returns the Arrow schema of s.
func (s *Schema) ToArrow() *arrow.Schema {
	fields := make([]arrow.Field, len(s.Fields))
	for i, f := range s.Fields {
		fields[i] = f.ToArrow()
	}
	md := arrowMeta(s.Metadata)
	return arrow.NewSchema(fields, &md)
}

// FieldByID returns the field with the given id anywhere in the tree, or nil.
func (s *Schema) FieldByID(id int32) *Field {
	var found *Field
	s.Walk(func(f *Field) bool {
		if f.ID == id {
			found = f
			return false
		}
		return true
	})
	return found
}

// Walk visits every field in depth-first pre-order until fn returns false.
func (s *Schema) Walk(fn func(*Field) bool) {
	var walk func([]*Field) bool
	walk = func(fs []*Field) bool {
		for _, f := range fs {
			if !fn(f) || !walk(f.Children) {
				return false
			}
		}
		return true
	}
	walk(s.Fields)
}

// Leaves returns the fields of f's subtree that own a column in a 2.1+ file, in pre-order:
// everything except structs, lists and maps.
func (f *Field) Leaves() []*Field {
	if !f.IsStruct() && !f.IsList() && f.Type.ID() != arrow.MAP {
		return []*Field{f}
	}
	var out []*Field
	for _, c := range f.Children {
		out = append(out, c.Leaves()...)
	}
	return out
}

// PreOrder returns f and all its descendants in depth-first pre-order.
func (f *Field) PreOrder() []*Field {
	out := []*Field{f}
	for _, c := range f.Children {
		out = append(out, c.PreOrder()...)
	}
	return out
}

func arrowMeta(m map[string]string) arrow.Metadata {
	if len(m) == 0 {
		return arrow.Metadata{}
	}
	keys := make([]string, 0, len(m))
	vals := make([]string, 0, len(m))
	for k, v := range m {
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return arrow.NewMetadata(keys, vals)
}

// flatField is one entry of the flat pre-order field list, independent of the protobuf type.
type flatField struct {
	id, parentID int32
	name         string
	logical      string
	nullable     bool
	metadata     map[string]string
}

// build turns a flat pre-order field list into a tree and resolves every field's Arrow type.
func build(flat []flatField) (*Schema, error) {
	if len(flat) > maxFields {
		return nil, fmt.Errorf("%w: %d fields", ErrBadSchema, len(flat))
	}
	byID := make(map[int32]*Field, len(flat))
	s := &Schema{}
	for _, ff := range flat {
		if ff.id < 0 {
			return nil, fmt.Errorf("%w: field %q has negative id %d", ErrBadSchema, ff.name, ff.id)
		}
		if _, dup := byID[ff.id]; dup {
			return nil, fmt.Errorf("%w: duplicate field id %d", ErrBadSchema, ff.id)
		}
		f := &Field{ID: ff.id, ParentID: ff.parentID, Name: ff.name, Nullable: ff.nullable,
			Metadata: ff.metadata, logical: ff.logical}
		byID[ff.id] = f
		if ff.parentID < 0 {
			s.Fields = append(s.Fields, f)
			continue
		}
		parent, ok := byID[ff.parentID]
		if !ok {
			return nil, fmt.Errorf("%w: field %q (id %d): parent %d does not precede it",
				ErrBadSchema, ff.name, ff.id, ff.parentID)
		}
		parent.Children = append(parent.Children, f)
	}
	for _, f := range s.Fields {
		if err := resolveType(f); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// resolveType sets f.Type (and its descendants' types) from the logical type strings.
func resolveType(f *Field) error {
	for _, c := range f.Children {
		if err := resolveType(c); err != nil {
			return err
		}
	}
	switch f.logical {
	case logicalStruct:
		fields := make([]arrow.Field, len(f.Children))
		for i, c := range f.Children {
			fields[i] = c.ToArrow()
		}
		f.Type = arrow.StructOf(fields...)
	case logicalList, logicalListStruct, logicalLargeList, logicalLargeListStuct:
		if len(f.Children) != 1 {
			return fmt.Errorf("%w: list field %q (id %d) has %d children, want 1",
				ErrBadSchema, f.Name, f.ID, len(f.Children))
		}
		item := f.Children[0].ToArrow()
		if f.logical == logicalList || f.logical == logicalListStruct {
			f.Type = arrow.ListOfField(item)
		} else {
			f.Type = arrow.LargeListOfField(item)
		}
	case logicalMap:
		t, err := mapType(f)
		if err != nil {
			return err
		}
		f.Type = t
	default:
		if len(f.Children) != 0 {
			return fmt.Errorf("%w: field %q (id %d) of type %q has children",
				ErrBadSchema, f.Name, f.ID, f.logical)
		}
		t, err := ParseLogicalType(f.logical)
		if err != nil {
			return fmt.Errorf("field %q (id %d): %w", f.Name, f.ID, err)
		}
		f.Type = t
	}
	return nil
}

// mapType builds the Arrow map type of a "map" field from its one child, the entries struct
// of a key and a value (Lance 2.2 writes maps with unsorted keys only).
func mapType(f *Field) (arrow.DataType, error) {
	if len(f.Children) != 1 || len(f.Children[0].Children) != 2 || !f.Children[0].IsStruct() {
		return nil, fmt.Errorf("%w: map field %q (id %d) needs one entries struct of a key and a value",
			ErrBadSchema, f.Name, f.ID)
	}
	k, v := f.Children[0].Children[0], f.Children[0].Children[1]
	if k.Nullable {
		return nil, fmt.Errorf("%w: map field %q (id %d) has nullable keys", ErrBadSchema, f.Name, f.ID)
	}
	t := arrow.MapOfWithMetadata(k.Type, arrowMeta(k.Metadata), v.Type, arrowMeta(v.Metadata))
	t.SetItemNullable(v.Nullable)
	return t, nil
}
