package index

import "strings"

// Type is the kind of an index, from the type URL of its index_details (§3.6).
type Type int

// Index types. Only BTree, Bitmap, LabelList, ZoneMap and BloomFilter are searchable.
const (
	TypeUnknown Type = iota
	TypeBTree
	TypeBitmap
	TypeLabelList
	TypeZoneMap
	TypeBloomFilter
	TypeNGram
	TypeInverted
	TypeVector
	TypeJSON
	TypeFragmentReuse
	TypeMemWal
)

// typeNames maps each type to its details message name (without package) and display name.
var typeNames = []struct {
	t       Type
	message string
	name    string
}{
	{TypeBTree, "BTreeIndexDetails", "BTree"},
	{TypeBitmap, "BitmapIndexDetails", "Bitmap"},
	{TypeLabelList, "LabelListIndexDetails", "LabelList"},
	{TypeZoneMap, "ZoneMapIndexDetails", "ZoneMap"},
	{TypeBloomFilter, "BloomFilterIndexDetails", "BloomFilter"},
	{TypeNGram, "NGramIndexDetails", "NGram"},
	{TypeInverted, "InvertedIndexDetails", "Inverted"},
	{TypeVector, "VectorIndexDetails", "Vector"},
	{TypeJSON, "JsonIndexDetails", "Json"},
	{TypeFragmentReuse, "FragmentReuseIndexDetails", "FragmentReuse"},
	{TypeMemWal, "MemWalIndexDetails", "MemWal"},
}

// String is the type's name as pylance's describe_indices spells it ("BTree", "Bitmap", ...).
func (t Type) String() string {
	for _, n := range typeNames {
		if n.t == t {
			return n.name
		}
	}
	return "Unknown"
}

// Supported reports whether this package can search indices of this type.
func (t Type) Supported() bool {
	switch t {
	case TypeBTree, TypeBitmap, TypeLabelList, TypeZoneMap, TypeBloomFilter:
		return true
	}
	return false
}

// System reports whether the type is a system index (not over a user column).
func (t Type) System() bool { return t == TypeFragmentReuse || t == TypeMemWal }

// TypeFromURL classifies an index_details type URL. It matches the message name only and
// case-insensitively, because Lance 0.36.0 wrote "/lance.index.pb.BTreeIndexDetails" for
// what is now "/lance.table.BTreeIndexDetails".
func TypeFromURL(url string) Type {
	msg := url
	if i := strings.LastIndexAny(msg, "./"); i >= 0 {
		msg = msg[i+1:]
	}
	for _, n := range typeNames {
		if strings.EqualFold(n.message, msg) {
			return n.t
		}
	}
	return TypeUnknown
}

// detailsURL is the type URL pylance 14 writes (no host part) for a type's details message.
func detailsURL(t Type) string {
	for _, n := range typeNames {
		if n.t == t {
			if t == TypeBloomFilter || t == TypeJSON {
				return "/lance.index.pb." + n.message
			}
			return "/lance.table." + n.message
		}
	}
	return ""
}
