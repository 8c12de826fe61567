package kernel

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// fmtPiece is one part of a compiled strftime format: literal text, or a specifier
// (with '-': without padding).
type fmtPiece struct {
	lit    string
	spec   byte
	noPad  bool
	isSpec bool
}

// strftimeSpecs are the specifiers DuckDB's strftime accepts.
const strftimeSpecs = "aAwdbhBmyYHIpMSgfnjUWcxX%GVuzZ"

// compileStrftime splits a DuckDB strftime format into pieces; an unknown specifier or a
// trailing % is an error, as in DuckDB.
func compileStrftime(format string) ([]fmtPiece, error) {
	var out []fmtPiece
	var lit strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			lit.WriteByte(format[i])
			continue
		}
		p := fmtPiece{isSpec: true}
		i++
		if i < len(format) && format[i] == '-' {
			p.noPad = true
			i++
		}
		if i >= len(format) {
			return nil, dberr.New(dberr.InvalidInput, "Failed to parse format specifier %s: Trailing format character %%", format)
		}
		p.spec = format[i]
		if !strings.ContainsRune(strftimeSpecs, rune(p.spec)) {
			return nil, dberr.New(dberr.InvalidInput, "Failed to parse format specifier %s: Unrecognized format for strftime/strptime: %%%c", format, p.spec)
		}
		if lit.Len() > 0 {
			out = append(out, fmtPiece{lit: lit.String()})
			lit.Reset()
		}
		out = append(out, p)
	}
	if lit.Len() > 0 {
		out = append(out, fmtPiece{lit: lit.String()})
	}
	return out, nil
}

// Strftime formats t with a DuckDB format string.
func Strftime(t time.Time, format string) (string, error) {
	pieces, err := compileStrftime(format)
	if err != nil {
		return "", err
	}
	return formatPieces(t, pieces), nil
}

func formatPieces(t time.Time, pieces []fmtPiece) string {
	var b strings.Builder
	for _, p := range pieces {
		if !p.isSpec {
			b.WriteString(p.lit)
			continue
		}
		b.WriteString(formatSpec(t, p))
	}
	return b.String()
}

func num(v, width int, noPad bool) string {
	s := strconv.Itoa(v)
	if noPad || len(s) >= width {
		return s
	}
	return strings.Repeat("0", width-len(s)) + s
}

// formatSpec renders one specifier.
func formatSpec(t time.Time, p fmtPiece) string {
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	yday0, wday := t.YearDay()-1, int(t.Weekday())
	isoYear, isoWeek := t.ISOWeek()
	switch p.spec {
	case 'a':
		return t.Weekday().String()[:3]
	case 'A':
		return t.Weekday().String()
	case 'w':
		return strconv.Itoa(wday)
	case 'u':
		return strconv.Itoa((wday+6)%7 + 1)
	case 'd':
		return num(t.Day(), 2, p.noPad)
	case 'b', 'h':
		return t.Month().String()[:3]
	case 'B':
		return t.Month().String()
	case 'm':
		return num(int(t.Month()), 2, p.noPad)
	case 'y':
		return num(t.Year()%100, 2, p.noPad)
	case 'Y':
		return num(t.Year(), 4, false)
	case 'G':
		return num(isoYear, 4, false)
	case 'V':
		return num(isoWeek, 2, p.noPad)
	case 'H':
		return num(t.Hour(), 2, p.noPad)
	case 'I':
		return num(hour12, 2, p.noPad)
	case 'p':
		if t.Hour() < 12 {
			return "AM"
		}
		return "PM"
	case 'M':
		return num(t.Minute(), 2, p.noPad)
	case 'S':
		return num(t.Second(), 2, p.noPad)
	case 'g':
		return num(t.Nanosecond()/1e6, 3, false)
	case 'f', 'n':
		return num(t.Nanosecond()/1e3, 6, false)
	case 'j':
		return num(yday0+1, 3, p.noPad)
	case 'U':
		return num((yday0+7-wday)/7, 2, p.noPad)
	case 'W':
		return num((yday0+7-(wday+6)%7)/7, 2, p.noPad)
	case 'c':
		return t.Format("2006-01-02 15:04:05")
	case 'x':
		return t.Format("2006-01-02")
	case 'X':
		return t.Format("15:04:05")
	case 'z':
		return "+00"
	case 'Z':
		return ""
	}
	return "%"
}

// strftimeFunc is strftime(x, format): VARCHAR. Formats are compiled once per distinct
// consecutive value.
func strftimeFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := timeGetter(args[0])
	if err != nil {
		return nil, err
	}
	formats, err := strGetter(args[1])
	if err != nil {
		return nil, err
	}
	var last string
	var pieces []fmtPiece
	return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
		if f := formats(i); pieces == nil || f != last {
			if pieces, err = compileStrftime(f); err != nil {
				return "", false, err
			}
			last = f
		}
		return formatPieces(get(i), pieces), true, nil
	})
}
