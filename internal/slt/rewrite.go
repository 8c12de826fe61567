package slt

import (
	"context"
	"fmt"
	"strings"
)

// Rewrite runs f against the engine (the oracle) and returns the file's text with every
// query's type string and result block replaced by what the engine produced. Records the
// runner's tags or features exclude keep their text. A statement that does not behave as
// the file says, or a query that fails, is an error: the oracle must accept the whole file.
func (r *Runner) Rewrite(ctx context.Context, f *File) (string, error) {
	blocks := map[*Record][]string{}
	missing := ""
	for i, rec := range f.Records {
		if missing == "" {
			missing = r.missingFeature(f, i)
		}
		if missing != "" || !r.applies(rec) {
			continue
		}
		if rec.Kind == Statement {
			if msg := r.checkStatement(ctx, rec); msg != "" {
				return "", fmt.Errorf("rewrite %s: %s", rec.Pos(f.Name), msg)
			}
			continue
		}
		types, rows, err := r.Engine.Query(ctx, rec.SQL)
		if err != nil {
			return "", fmt.Errorf("rewrite %s: query failed: %w", rec.Pos(f.Name), err)
		}
		blocks[rec] = rewriteBlock(rec, types, ResultLines(rows, rec.Sort))
	}
	return splice(f, blocks), nil
}

// rewriteBlock renders a query's new header and result block.
func rewriteBlock(rec *Record, types string, lines []string) []string {
	header := "query " + types
	if rec.Sort != NoSort {
		header += " " + rec.Sort.String()
	}
	if rec.Label != "" {
		header += " " + rec.Label
	}
	return append([]string{header, "----"}, lines...)
}

// splice rebuilds the file text: block[0] replaces a record's header line, the rest its
// result block.
func splice(f *File, blocks map[*Record][]string) string {
	var out []string
	next := 0
	for _, rec := range f.Records {
		b, ok := blocks[rec]
		if !ok {
			continue
		}
		out = append(out, f.lines[next:rec.headerIdx]...)
		out = append(out, b[0])
		out = append(out, f.lines[rec.headerIdx+1:rec.resultStart]...)
		out = append(out, b[1:]...)
		next = rec.resultEnd
	}
	out = append(out, f.lines[next:]...)
	return strings.Join(out, "\n") + "\n"
}
