package slt

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Engine runs SQL for a Runner.
type Engine interface {
	// Exec runs a statement and discards any result.
	Exec(ctx context.Context, sql string) error
	// Query runs a query and returns its type string (one TypeLetter per column) and its
	// rows rendered with Render.
	Query(ctx context.Context, sql string) (types string, rows [][]string, err error)
}

// Status is the outcome of one record.
type Status int

// Record outcomes.
const (
	// Pass means the record behaved as the file says.
	Pass Status = iota
	// Fail means it did not; Outcome.Message says how.
	Fail
	// Skipped means a condition, a missing feature or an earlier halt kept it from running.
	Skipped
)

// Outcome is what happened to one record.
type Outcome struct {
	Record  *Record
	Status  Status
	Message string // why it failed (several lines for result mismatches)
}

// Summary is the first line of the failure message, cut to a readable length; it is what
// a known-failures list records.
func (o Outcome) Summary() string {
	s, _, _ := strings.Cut(o.Message, "\n")
	s = strings.ReplaceAll(s, "\t", " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// Runner runs files against an engine.
type Runner struct {
	// Engine runs the SQL.
	Engine Engine
	// Tags are what skipif/onlyif lines match: the engine's name ("flightd", "duckdb")
	// and "config <name>" for the run's configuration.
	Tags []string
	// Features are what require lines ask for.
	Features []string
	// IgnoreErrorPatterns checks only that failing statements fail, not their message
	// (for an oracle whose messages differ from flightd's).
	IgnoreErrorPatterns bool
}

// Run runs every record of f in order and returns one outcome per record.
func (r *Runner) Run(ctx context.Context, f *File) []Outcome {
	out := make([]Outcome, 0, len(f.Records))
	labels := map[string][]string{}
	missing := ""
	for i, rec := range f.Records {
		if missing == "" {
			missing = r.missingFeature(f, i)
		}
		if missing != "" || !r.applies(rec) || ctx.Err() != nil {
			out = append(out, Outcome{Record: rec, Status: Skipped, Message: missing})
			continue
		}
		msg := r.check(ctx, rec, labels)
		st := Pass
		if msg != "" {
			st = Fail
		}
		out = append(out, Outcome{Record: rec, Status: st, Message: msg})
	}
	return out
}

func (r *Runner) missingFeature(f *File, i int) string {
	for _, req := range f.Requires {
		if req.Before <= i && !slices.Contains(r.Features, req.Feature) {
			return "require " + req.Feature
		}
	}
	return ""
}

// applies evaluates a record's skipif/onlyif conditions.
func (r *Runner) applies(rec *Record) bool {
	for _, c := range rec.Conditions {
		if slices.Contains(r.Tags, c.Tag) == c.Skip {
			return false
		}
	}
	return true
}

// check runs one record and returns "" when it passes, else why it failed.
func (r *Runner) check(ctx context.Context, rec *Record, labels map[string][]string) string {
	if rec.Kind == Statement {
		return r.checkStatement(ctx, rec)
	}
	types, rows, err := r.Engine.Query(ctx, rec.SQL)
	if err != nil {
		return fmt.Sprintf("query failed: %v", err)
	}
	got := ResultLines(rows, rec.Sort)
	if msg := compareTypes(rec.Types, types); msg != "" {
		return msg
	}
	if rec.Label != "" {
		if prev, ok := labels[rec.Label]; ok && !slices.Equal(prev, got) {
			return fmt.Sprintf("result differs from the earlier query labelled %s: %s", rec.Label, diff(prev, got))
		}
		labels[rec.Label] = got
	}
	if rec.HasResult && !slices.Equal(rec.Expected, got) {
		return "wrong result: " + diff(rec.Expected, got)
	}
	return ""
}

func (r *Runner) checkStatement(ctx context.Context, rec *Record) string {
	err := r.Engine.Exec(ctx, rec.SQL)
	switch {
	case err == nil && rec.ExpectError:
		return fmt.Sprintf("statement succeeded, want an error matching %q", rec.ErrorPattern)
	case err == nil:
		return ""
	case !rec.ExpectError:
		return fmt.Sprintf("statement failed: %v", err)
	case rec.ErrorPattern == "" || r.IgnoreErrorPatterns:
		return ""
	}
	re := regexp.MustCompile(rec.ErrorPattern) // compiled once already by the parser
	if !re.MatchString(err.Error()) {
		return fmt.Sprintf("error %q does not match %q", err.Error(), rec.ErrorPattern)
	}
	return ""
}

func compareTypes(want, got string) string {
	if len(want) != len(got) {
		return fmt.Sprintf("wrong column count: want %d (%s), got %d (%s)", len(want), want, len(got), got)
	}
	for i := range len(want) {
		if want[i] != '?' && want[i] != got[i] {
			return fmt.Sprintf("wrong column types: want %s, got %s", want, got)
		}
	}
	return ""
}

// ResultLines turns rendered rows into the lines of a result block under a sort mode:
// one tab-separated line per row, or one value per line for ValueSort.
func ResultLines(rows [][]string, mode SortMode) []string {
	var lines []string
	if mode == ValueSort {
		for _, row := range rows {
			lines = append(lines, row...)
		}
	} else {
		for _, row := range rows {
			lines = append(lines, strings.Join(row, "\t"))
		}
	}
	if mode != NoSort {
		slices.Sort(lines)
	}
	return lines
}

// diff renders expected and actual lines side by side, marking the first difference.
func diff(want, got []string) string {
	const maxLines = 20
	var b strings.Builder
	first := -1
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) || want[i] != got[i] {
			first = i
			break
		}
	}
	fmt.Fprintf(&b, "first difference at result line %d (want %d lines, got %d)\n", first+1, len(want), len(got))
	write := func(name string, lines []string) {
		fmt.Fprintf(&b, "%s:\n", name)
		for i, l := range lines {
			if i == maxLines {
				fmt.Fprintf(&b, "  … %d more\n", len(lines)-maxLines)
				break
			}
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	write("want", want)
	write("got", got)
	return b.String()
}
