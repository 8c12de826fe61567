package schema

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// FromArrow builds a Lance schema from an Arrow schema, giving fields ids firstID,
// firstID+1, ... in depth-first pre-order (parents before children), as Lance does for a
// new schema (§4.1). Struct members and a list's item become child fields; fixed-size lists
// have no child field. Types without a Lance logical type are rejected.
func FromArrow(as *arrow.Schema, firstID int32) (*Schema, error) {
	next := firstID
	var conv func(af arrow.Field, parent int32) (*Field, error)
	conv = func(af arrow.Field, parent int32) (*Field, error) {
		lt, err := FormatLogicalType(af.Type)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", af.Name, err)
		}
		f := &Field{ID: next, ParentID: parent, Name: af.Name, Type: af.Type, Nullable: af.Nullable,
			logical: lt}
		next++
		if af.HasMetadata() {
			f.Metadata = make(map[string]string, af.Metadata.Len())
			for i, k := range af.Metadata.Keys() {
				f.Metadata[k] = af.Metadata.Values()[i]
			}
		}
		var children []arrow.Field
		switch t := af.Type.(type) {
		case *arrow.StructType:
			children = t.Fields()
		case *arrow.ListType:
			children = []arrow.Field{t.ElemField()}
		case *arrow.LargeListType:
			children = []arrow.Field{t.ElemField()}
		case *arrow.MapType:
			children = []arrow.Field{t.ElemField()} // entries: struct<key, value>
		}
		for _, c := range children {
			cf, err := conv(c, f.ID)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", af.Name, err)
			}
			f.Children = append(f.Children, cf)
		}
		return f, nil
	}
	s := &Schema{}
	for _, af := range as.Fields() {
		f, err := conv(af, -1)
		if err != nil {
			return nil, err
		}
		s.Fields = append(s.Fields, f)
	}
	if md := as.Metadata(); md.Len() > 0 {
		s.Metadata = make(map[string]string, md.Len())
		for i, k := range md.Keys() {
			s.Metadata[k] = md.Values()[i]
		}
	}
	return s, nil
}
