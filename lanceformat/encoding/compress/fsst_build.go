package compress

import (
	"slices"
	"sort"
)

// FSST table construction (encoder side). Lance's reader only needs a valid
// symbol table, so any table works; this builder follows the published FSST
// idea (grow symbols by counting adjacent symbol pairs over a few rounds on a
// sample) in a simple, unoptimised form.

const (
	fsstSampleBytes = 16 << 10 // sample budget
	fsstRounds      = 5
	fsstMaxSymbols  = 255 // codes 0..254; 255 is the escape
)

// fsstMatcher finds the longest symbol matching at a position.
type fsstMatcher struct {
	byFirst [256][]int // symbol codes by first byte, longest first
	syms    [][]byte
}

func newFSSTMatcher(syms [][]byte) *fsstMatcher {
	m := &fsstMatcher{syms: syms}
	for c, s := range syms {
		m.byFirst[s[0]] = append(m.byFirst[s[0]], c)
	}
	for i := range m.byFirst {
		sort.SliceStable(m.byFirst[i], func(a, b int) bool {
			return len(syms[m.byFirst[i][a]]) > len(syms[m.byFirst[i][b]])
		})
	}
	return m
}

// match returns the code and length of the longest symbol that prefixes
// src, or (-1, 1) when none does (the byte must be escaped).
func (m *fsstMatcher) match(src []byte) (int, int) {
	for _, c := range m.byFirst[src[0]] {
		s := m.syms[c]
		if len(s) <= len(src) && string(src[:len(s)]) == string(s) {
			return c, len(s)
		}
	}
	return -1, 1
}

// BuildFSSTTable builds a symbol table for the given strings (EncoderSwitch
// on). Use it with FSSTTable.Compress and store Marshal() in
// Fsst.symbol_table. Lance only uses FSST when a page holds >= 32 KiB of
// string data whose longest value has >= 5 bytes.
func BuildFSSTTable(strs [][]byte) *FSSTTable {
	var sample [][]byte
	budget := fsstSampleBytes
	for _, s := range strs {
		if budget <= 0 {
			break
		}
		if len(s) > 0 {
			s = s[:min(len(s), budget)]
			sample = append(sample, s)
			budget -= len(s)
		}
	}
	var syms [][]byte
	for range fsstRounds {
		syms = fsstNextSymbols(newFSSTMatcher(syms), sample)
	}
	return &FSSTTable{EncoderSwitch: true, Symbols: syms}
}

// fsstNextSymbols tokenises the sample with the current symbols, counts
// tokens and adjacent token pairs (up to 8 bytes) and keeps the candidates
// with the highest gain (occurrences x length).
func fsstNextSymbols(m *fsstMatcher, sample [][]byte) [][]byte {
	gain := map[string]int{}
	for _, s := range sample {
		prev := ""
		for i := 0; i < len(s); {
			_, l := m.match(s[i:])
			tok := string(s[i : i+l])
			gain[tok] += len(tok)
			if prev != "" && len(prev)+len(tok) <= FSSTMaxSymbolLen {
				pair := prev + tok
				gain[pair] += len(pair)
			}
			prev = tok
			i += l
		}
	}
	cands := make([]string, 0, len(gain))
	for k := range gain {
		cands = append(cands, k)
	}
	slices.SortFunc(cands, func(a, b string) int {
		if gain[a] != gain[b] {
			return gain[b] - gain[a]
		}
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return compareStrings(a, b)
	})
	out := make([][]byte, 0, fsstMaxSymbols)
	for _, c := range cands[:min(len(cands), fsstMaxSymbols)] {
		out = append(out, []byte(c))
	}
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
