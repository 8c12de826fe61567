package index

import (
	"maps"
	"slices"
)

// RowSet is a set of 64-bit row addresses (fragment id << 32 | offset). A fragment may be
// marked whole ("every row"), as Lance's RowIdTreeMap does, without knowing its row count.
// The zero value is not usable; use NewRowSet.
type RowSet struct {
	frags map[uint32]*fragRows
}

// fragRows is the part of a RowSet in one fragment: all rows, or sorted distinct offsets.
type fragRows struct {
	all  bool
	rows []uint32
}

// NewRowSet returns an empty set.
func NewRowSet() *RowSet { return &RowSet{frags: map[uint32]*fragRows{}} }

// RowSetOf returns the set of the given addresses (any order, duplicates allowed).
func RowSetOf(addrs ...uint64) *RowSet {
	s := NewRowSet()
	for _, a := range addrs {
		s.add(a)
	}
	s.normalize()
	return s
}

func (s *RowSet) add(addr uint64) {
	f := uint32(addr >> 32)
	fr := s.frags[f]
	if fr == nil {
		fr = &fragRows{}
		s.frags[f] = fr
	}
	fr.rows = append(fr.rows, uint32(addr))
}

func (s *RowSet) normalize() {
	for _, fr := range s.frags {
		if !slices.IsSorted(fr.rows) {
			slices.Sort(fr.rows)
		}
		fr.rows = slices.Compact(fr.rows)
	}
}

// AddFragment marks every row of fragment frag as a member.
func (s *RowSet) AddFragment(frag uint32) { s.frags[frag] = &fragRows{all: true} }

// Fragments returns the fragment ids with at least one member, ascending.
func (s *RowSet) Fragments() []uint32 { return slices.Sorted(maps.Keys(s.frags)) }

// IsFull reports whether every row of fragment frag is a member.
func (s *RowSet) IsFull(frag uint32) bool { fr := s.frags[frag]; return fr != nil && fr.all }

// Offsets returns the member offsets of fragment frag, ascending (nil for a whole fragment;
// check IsFull).
func (s *RowSet) Offsets(frag uint32) []uint32 {
	if fr := s.frags[frag]; fr != nil && !fr.all {
		return fr.rows
	}
	return nil
}

// cost is the set's size estimate for the page cache.
func (s *RowSet) cost() int64 {
	n := 48
	for _, fr := range s.frags {
		n += 64 + 4*len(fr.rows)
	}
	return int64(n)
}

// Contains reports whether addr is a member.
func (s *RowSet) Contains(addr uint64) bool {
	fr := s.frags[uint32(addr>>32)]
	if fr == nil {
		return false
	}
	if fr.all {
		return true
	}
	_, ok := slices.BinarySearch(fr.rows, uint32(addr))
	return ok
}

// Addrs lists the members ascending; whole fragments are not enumerable and are skipped
// (see Fragments and IsFull).
func (s *RowSet) Addrs() []uint64 {
	var out []uint64
	for _, f := range s.Fragments() {
		for _, r := range s.frags[f].rows {
			out = append(out, uint64(f)<<32|uint64(r))
		}
	}
	return out
}

// Len is the number of enumerable members (whole fragments count 0).
func (s *RowSet) Len() int {
	n := 0
	for _, fr := range s.frags {
		n += len(fr.rows)
	}
	return n
}

// Union adds the members of o to s.
func (s *RowSet) Union(o *RowSet) {
	for f, ofr := range o.frags {
		fr := s.frags[f]
		switch {
		case fr == nil:
			s.frags[f] = &fragRows{all: ofr.all, rows: slices.Clone(ofr.rows)}
		case fr.all:
		case ofr.all:
			s.frags[f] = &fragRows{all: true}
		default:
			fr.rows = mergeSorted(fr.rows, ofr.rows)
		}
	}
}

// Intersect keeps only the members of s that are also in o.
func (s *RowSet) Intersect(o *RowSet) {
	for f, fr := range s.frags {
		ofr := o.frags[f]
		switch {
		case ofr == nil:
			delete(s.frags, f)
			continue
		case ofr.all:
		case fr.all:
			s.frags[f] = &fragRows{rows: slices.Clone(ofr.rows)}
		default:
			fr.rows = intersectSorted(fr.rows, ofr.rows)
		}
		if g := s.frags[f]; !g.all && len(g.rows) == 0 {
			delete(s.frags, f)
		}
	}
}

// mergeSorted returns the sorted union of two sorted distinct slices.
func mergeSorted(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// intersectSorted returns the sorted intersection of two sorted distinct slices.
func intersectSorted(a, b []uint32) []uint32 {
	var out []uint32
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
