package ops

// segTree is a bottom-up segment tree over n leaves combined by an associative function
// (not necessarily commutative: queries combine in leaf order). It answers the combination
// of any range of leaves in O(log n).
type segTree[T any] struct {
	n       int
	nodes   []T
	zero    T
	combine func(a, b T) T
}

// newSegTree builds a tree over leaves; zero is the identity of combine.
func newSegTree[T any](leaves []T, zero T, combine func(a, b T) T) *segTree[T] {
	n := len(leaves)
	s := &segTree[T]{n: n, nodes: make([]T, 2*n), zero: zero, combine: combine}
	copy(s.nodes[n:], leaves)
	for i := n - 1; i >= 1; i-- {
		s.nodes[i] = combine(s.nodes[2*i], s.nodes[2*i+1])
	}
	return s
}

// query returns the combination of leaves [lo, hi), or zero when the range is empty.
func (s *segTree[T]) query(lo, hi int) T {
	left, right := s.zero, s.zero
	lo, hi = max(lo, 0)+s.n, min(hi, s.n)+s.n
	for lo < hi {
		if lo&1 == 1 {
			left = s.combine(left, s.nodes[lo])
			lo++
		}
		if hi&1 == 1 {
			hi--
			right = s.combine(s.nodes[hi], right)
		}
		lo, hi = lo/2, hi/2
	}
	return s.combine(left, right)
}
