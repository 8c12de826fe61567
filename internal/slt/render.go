package slt

import (
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// Rendering rules shared by every engine, so that results compare as text.
const (
	// Null is how SQL NULL is rendered.
	Null = "NULL"
	// Empty is how the empty string is rendered (a blank line would end the result block).
	Empty = "(empty)"
	// FloatDigits is the number of significant digits floats and fractional decimals are
	// rounded to before rendering, so that summation order does not matter.
	FloatDigits = 12
)

// TypeLetter is the sqllogictest letter of an Arrow type: I integer (and decimals of
// scale 0), R real (floats and decimals with a fraction), B boolean, T text, D date/time;
// everything else is T.
func TypeLetter(dt arrow.DataType) byte {
	switch t := dt.(type) {
	case *arrow.DictionaryType:
		return TypeLetter(t.ValueType)
	case arrow.DecimalType:
		if t.GetScale() == 0 {
			return 'I'
		}
		return 'R'
	}
	switch {
	case arrow.IsInteger(dt.ID()):
		return 'I'
	case arrow.IsFloating(dt.ID()):
		return 'R'
	}
	switch dt.ID() {
	case arrow.BOOL:
		return 'B'
	case arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64:
		return 'D'
	}
	return 'T'
}

// Types renders the type string of a schema.
func Types(sc *arrow.Schema) string {
	var b strings.Builder
	for _, f := range sc.Fields() {
		b.WriteByte(TypeLetter(f.Type))
	}
	return b.String()
}

// RenderBatches renders every row of the batches, which share one schema.
func RenderBatches(batches []arrow.RecordBatch) [][]string {
	var rows [][]string
	for _, b := range batches {
		for i := range int(b.NumRows()) {
			row := make([]string, b.NumCols())
			for c := range row {
				row[c] = Render(b.Column(c), i)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// Render renders the value at row i of arr.
func Render(arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return Null
	}
	switch a := arr.(type) {
	case *array.Dictionary:
		return Render(a.Dictionary(), a.GetValueIndex(i))
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Float16:
		return FormatFloat(float64(a.Value(i).Float32()))
	case *array.Float32:
		return FormatFloat(float64(a.Value(i)))
	case *array.Float64:
		return FormatFloat(a.Value(i))
	case *array.Decimal128:
		return formatDecimal128(a.Value(i), a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Decimal256:
		return formatDecimal256(a.Value(i), a.DataType().(*arrow.Decimal256Type).Scale)
	case *array.String:
		return text(a.Value(i))
	case *array.LargeString:
		return text(a.Value(i))
	case *array.StringView:
		return text(a.Value(i))
	case *array.Binary:
		return binary(a.Value(i))
	case *array.LargeBinary:
		return binary(a.Value(i))
	case *array.Date32:
		return a.Value(i).ToTime().Format(time.DateOnly)
	case *array.Date64:
		return a.Value(i).ToTime().UTC().Format(time.DateOnly)
	case *array.Timestamp:
		return formatTimestamp(a, i)
	}
	return text(arr.ValueStr(i))
}

// FormatFloat renders a float rounded to FloatDigits significant digits, in plain decimal
// notation without trailing zeros ("2", "0.3", "-1.25"), or in exponent notation ("1e+300",
// "2.5e-07") when its magnitude is at least 1e21 or below 1e-6; NaN and infinities are
// "NaN", "inf" and "-inf", and negative zero is "0".
func FormatFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v == 0:
		return "0"
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', FloatDigits, 64), 64)
	if err != nil {
		r = v
	}
	if a := math.Abs(r); a >= 1e21 || a < 1e-6 {
		return strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func formatDecimal128(n decimal128.Num, scale int32) string {
	if scale == 0 {
		return n.BigInt().String()
	}
	return formatBigDecimal(n.BigInt(), scale)
}

func formatDecimal256(n decimal256.Num, scale int32) string {
	if scale == 0 {
		return n.BigInt().String()
	}
	return formatBigDecimal(n.BigInt(), scale)
}

// formatBigDecimal renders unscaled×10^-scale like a float, so that a decimal and a double
// holding the same number render the same.
func formatBigDecimal(unscaled *big.Int, scale int32) string {
	f := new(big.Float).SetInt(unscaled)
	if scale > 0 {
		f.Quo(f, new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	} else {
		f.Mul(f, new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil)))
	}
	v, _ := f.Float64()
	return FormatFloat(v)
}

func formatTimestamp(a *array.Timestamp, i int) string {
	tt := a.DataType().(*arrow.TimestampType)
	t := a.Value(i).ToTime(tt.Unit).UTC()
	s := t.Format("2006-01-02 15:04:05.999999999")
	if tt.TimeZone != "" {
		s += "+00"
	}
	return s
}

// text renders a string value: the empty string as Empty, tabs and newlines escaped so
// that a value never breaks the line-and-tab layout of a result block.
func text(s string) string {
	if s == "" {
		return Empty
	}
	return strings.NewReplacer("\\", "\\\\", "\t", "\\t", "\n", "\\n", "\r", "\\r").Replace(s)
}

func binary(b []byte) string {
	if len(b) == 0 {
		return Empty
	}
	return `\x` + strings.ToUpper(hex.EncodeToString(b))
}
