package schema

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// extensionNameKey is the Arrow metadata key that the deprecated Field.extension_name maps to.
const extensionNameKey = "ARROW:extension:name"

// FromProto builds a Schema from the flat pre-order field list of a manifest or a data
// file's FileDescriptor (§4.1). Field ids and parent ids are kept as stored.
func FromProto(fields []*lancepb.Field) (*Schema, error) {
	if len(fields) > maxFields {
		return nil, fmt.Errorf("%w: %d fields", ErrBadSchema, len(fields))
	}
	flat := make([]flatField, len(fields))
	for i, f := range fields {
		var md map[string]string
		if len(f.GetMetadata()) > 0 || f.GetExtensionName() != "" {
			md = make(map[string]string, len(f.GetMetadata())+1)
			for k, v := range f.GetMetadata() {
				md[k] = string(v)
			}
			if n := f.GetExtensionName(); n != "" {
				if _, ok := md[extensionNameKey]; !ok {
					md[extensionNameKey] = n
				}
			}
		}
		flat[i] = flatField{id: f.GetId(), parentID: f.GetParentId(), name: f.GetName(),
			logical: f.GetLogicalType(), nullable: f.GetNullable(), metadata: md}
	}
	return build(flat)
}

// FromSchemaProto is FromProto plus the schema-level metadata of a lance.file.Schema.
func FromSchemaProto(s *lancepb.Schema) (*Schema, error) {
	out, err := FromProto(s.GetFields())
	if err != nil {
		return nil, err
	}
	if len(s.GetMetadata()) > 0 {
		out.Metadata = make(map[string]string, len(s.GetMetadata()))
		for k, v := range s.GetMetadata() {
			out.Metadata[k] = string(v)
		}
	}
	return out, nil
}

// ToProto flattens s into the pre-order field list Lance writers emit, with the legacy v1
// encoding enum filled in the way the Rust writer does.
func (s *Schema) ToProto() ([]*lancepb.Field, error) {
	var out []*lancepb.Field
	var err error
	s.Walk(func(f *Field) bool {
		var pf *lancepb.Field
		pf, err = f.toProto()
		if err != nil {
			return false
		}
		out = append(out, pf)
		return true
	})
	return out, err
}

func (f *Field) toProto() (*lancepb.Field, error) {
	lt := f.logical
	if lt == "" {
		var err error
		lt, err = FormatLogicalType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %q (id %d): %w", f.Name, f.ID, err)
		}
	}
	pf := &lancepb.Field{Name: f.Name, Id: f.ID, ParentId: f.ParentID, LogicalType: lt,
		Nullable: f.Nullable, Encoding: legacyEncoding(f)}
	if len(f.Metadata) > 0 {
		pf.Metadata = make(map[string][]byte, len(f.Metadata))
		for k, v := range f.Metadata {
			pf.Metadata[k] = []byte(v)
		}
	}
	return pf, nil
}

func legacyEncoding(f *Field) lancepb.Field_Encoding {
	switch f.Type.ID() {
	case arrow.STRUCT:
		return lancepb.Field_NONE
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return lancepb.Field_VAR_BINARY
	}
	return lancepb.Field_PLAIN
}
