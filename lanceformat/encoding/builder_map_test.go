package encoding_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
)

// mapEntry is one key/value pair appended to a map builder; a nil value is a null value.
type mapEntry struct {
	key   string
	value *int32
}

// appendMap appends one map slot (nil entries and !valid: a null map) through the public
// slot API, the way the level assembler does.
func appendMap(t *testing.T, b *encoding.Builder, valid bool, entries []mapEntry, nullKey bool) {
	t.Helper()
	require.NoError(t, b.AppendSlot(valid))
	ent := b.Child(0)
	for _, e := range entries {
		require.NoError(t, ent.AppendSlot(true))
		require.NoError(t, ent.Child(0).AppendValue([]byte(e.key), !nullKey))
		if e.value == nil {
			ent.Child(1).AppendNulls(1)
		} else {
			v := *e.value
			raw := []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
			require.NoError(t, ent.Child(1).AppendFixed(raw, 0, 1, nil))
		}
	}
	b.SetLastListEnd(int64(ent.Len()))
}

// Maps build as Arrow map arrays (a list of non-null entries structs with non-null keys):
// null maps, empty maps, null values; null keys or entries are corrupt data, reported as
// errors rather than arrow-go's panics.
func TestMapBuilder(t *testing.T) {
	mt := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)
	seven := int32(7)
	minus := int32(-300000)
	tests := []struct {
		name    string
		nullKey bool
		nullEnt bool
		want    string
	}{
		{"valid", false, false, `[null, [], [{"key": "a", "value": 7}, {"key": "b", "value": null}], [{"key": "c", "value": -300000}]]`},
		{"null key", true, false, ""},
		{"null entry", false, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			b, err := encoding.NewBuilder(mt)
			require.NoError(t, err)
			defer b.Release()
			require.Equal(t, encoding.KindList, b.Kind())
			appendMap(t, b, false, nil, false)
			appendMap(t, b, true, nil, false)
			appendMap(t, b, true, []mapEntry{{"a", &seven}, {"b", nil}}, false)
			appendMap(t, b, true, []mapEntry{{"c", &minus}}, tc.nullKey)
			if tc.nullEnt {
				require.NoError(t, b.AppendSlot(true))
				b.Child(0).AppendNulls(1)
				b.SetLastListEnd(int64(b.Child(0).Len()))
			}
			got, err := b.FinishArray(mem)
			if tc.want == "" {
				require.ErrorIs(t, err, encoding.ErrCorrupt)
				return
			}
			require.NoError(t, err)
			defer got.Release()
			want, _, err := array.FromJSON(mem, mt, strings.NewReader(tc.want))
			require.NoError(t, err)
			defer want.Release()
			require.True(t, arrow.TypeEqual(mt, got.DataType()))
			require.True(t, array.Equal(want, got), "want %s\ngot  %s", want, got)
		})
	}
}
