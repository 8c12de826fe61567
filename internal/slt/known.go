package slt

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// KnownFailures maps a record's position ("file:line") to the summary of how it fails. A
// list is checked in per run configuration; Compare fails a run when a record fails that is
// not listed, and when a listed record passes, so the list can only shrink.
type KnownFailures map[string]string

// LoadKnownFailures reads a list: one "file:line<TAB>summary" per line, "#" comments and
// blank lines ignored. A missing file is an empty list.
func LoadKnownFailures(path string) (KnownFailures, error) {
	k := KnownFailures{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return k, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open known failures %s: %w", path, err)
	}
	defer f.Close() //nolint:errcheck // read-only file: a close error cannot lose data
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pos, summary, _ := strings.Cut(line, "\t")
		if !strings.Contains(pos, ":") {
			return nil, fmt.Errorf("read known failures %s:%d: want file:line<TAB>summary, got %q", path, n, line)
		}
		k[pos] = strings.TrimSpace(summary)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read known failures %s: %w", path, err)
	}
	return k, nil
}

// Write writes the list sorted by position (files by name, lines by number) under a
// comment header.
func (k KnownFailures) Write(path, header string) error {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(header), "\n") {
		b.WriteString("# " + l + "\n")
	}
	for _, pos := range k.sorted() {
		fmt.Fprintf(&b, "%s\t%s\n", pos, k[pos])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write known failures %s: %w", path, err)
	}
	return nil
}

func (k KnownFailures) sorted() []string {
	keys := make([]string, 0, len(k))
	for pos := range k {
		keys = append(keys, pos)
	}
	slices.SortFunc(keys, comparePos)
	return keys
}

// comparePos orders "file:line" positions by file, then numerically by line.
func comparePos(a, b string) int {
	fa, la := splitPos(a)
	fb, lb := splitPos(b)
	if c := strings.Compare(fa, fb); c != 0 {
		return c
	}
	return la - lb
}

func splitPos(pos string) (string, int) {
	i := strings.LastIndexByte(pos, ':')
	if i < 0 {
		return pos, 0
	}
	n := 0
	for _, c := range pos[i+1:] {
		if c < '0' || c > '9' {
			return pos, 0
		}
		n = n*10 + int(c-'0')
	}
	return pos[:i], n
}

// Compare checks the outcomes of one file's run against the list. It returns the records
// that fail but are not listed (regressions), those that are listed but passed (fixed:
// remove them from the list), and the file's listed positions that are no record of the
// file at all (stale: the file changed without the list being regenerated). Skipped
// records count as none of these.
func (k KnownFailures) Compare(file string, outcomes []Outcome) (unexpected, fixed []Outcome, stale []string) {
	seen := map[string]bool{}
	for _, o := range outcomes {
		pos := o.Record.Pos(file)
		seen[pos] = true
		_, listed := k[pos]
		switch {
		case o.Status == Fail && !listed:
			unexpected = append(unexpected, o)
		case o.Status == Pass && listed:
			fixed = append(fixed, o)
		}
	}
	for _, pos := range k.sorted() {
		if f, _ := splitPos(pos); f == file && !seen[pos] {
			stale = append(stale, pos)
		}
	}
	return unexpected, fixed, stale
}

// Record replaces the file's entries with the failures among outcomes (for -rewrite of the
// list). Entries of other files are kept.
func (k KnownFailures) Record(file string, outcomes []Outcome) {
	for pos := range k {
		if f, _ := splitPos(pos); f == file {
			delete(k, pos)
		}
	}
	for _, o := range outcomes {
		if o.Status == Fail {
			k[o.Record.Pos(file)] = o.Summary()
		}
	}
}
