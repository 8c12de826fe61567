package file

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/schema"
)

// Field metadata keys asking for a packed struct (§4.3): the whole struct is one column
// whose values are its children's values side by side, and the children own no columns.
const (
	packedKey       = "lance-encoding:packed"
	packedLegacyKey = "packed"
)

// isPacked reports whether struct field f is stored packed in a file of version v. The
// writers decide differently per version (observed with pylance 14): the 2.0 writer obeys
// the legacy key "packed" when present (packed iff it is exactly "true") and otherwise
// packs whenever "lance-encoding:packed" is present, whatever its value; the 2.1+ writer
// packs when either key is "true", in any case.
func isPacked(f *schema.Field, v Version) bool {
	if !f.IsStruct() {
		return false
	}
	if v == V2_0 {
		if s, ok := f.Metadata[packedLegacyKey]; ok {
			return s == "true"
		}
		_, ok := f.Metadata[packedKey]
		return ok
	}
	return strings.EqualFold(f.Metadata[packedLegacyKey], "true") || strings.EqualFold(f.Metadata[packedKey], "true")
}

// columnFields returns the fields of f's subtree that own a column in a file of version v,
// in column order (§4.4): for 2.0 every field in pre-order, for 2.1+ the leaves (neither
// structs nor lists nor maps). A packed struct owns one column, and its children none, in both.
func columnFields(f *schema.Field, v Version) []*schema.Field {
	if isPacked(f, v) {
		return []*schema.Field{f}
	}
	var out []*schema.Field
	if v == V2_0 || (!f.IsStruct() && !isListLike(f)) {
		out = append(out, f)
	}
	for _, c := range f.Children {
		out = append(out, columnFields(c, v)...)
	}
	return out
}

// isListLike reports whether f is a list, a large list or a map: a field with offsets into
// one child (a map's child is its entries struct of a key and a value), which owns no column
// in a 2.1+ file and is one list layer of its leaves' repetition levels.
func isListLike(f *schema.Field) bool {
	return f.IsList() || f.Type.ID() == arrow.MAP
}
