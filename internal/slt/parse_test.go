package slt_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/slt"
)

const sample = `# name: sample.test
# group: [sample]

require lance

statement ok
CREATE TABLE t AS
SELECT 1 AS a

statement error no such (table|column)
SELECT * FROM missing

statement error
SELECT x
----
Binder Error.*x

skipif config batch_size_1
onlyif flightd
query IT rowsort lbl
SELECT a,
       'x'
FROM t
----
1	x

query I
SELECT 2

mode skip

query I
SELECT 3
----
3

mode unskip

query R valuesort
SELECT 1.5, 2
----
1.5
2

halt

query I
SELECT broken
`

func TestParse(t *testing.T) {
	f, err := slt.Parse("sample.test", sample)
	require.NoError(t, err)
	require.Equal(t, []slt.Require{{Feature: "lance", Before: 0}}, f.Requires)
	require.Len(t, f.Records, 6, "mode skip and halt drop records")

	st := f.Records[0]
	require.Equal(t, slt.Statement, st.Kind)
	require.Equal(t, 6, st.Line)
	require.Equal(t, "CREATE TABLE t AS\nSELECT 1 AS a", st.SQL)
	require.False(t, st.ExpectError)

	require.True(t, f.Records[1].ExpectError)
	require.Equal(t, "no such (table|column)", f.Records[1].ErrorPattern)
	require.Equal(t, "Binder Error.*x", f.Records[2].ErrorPattern)

	q := f.Records[3]
	require.Equal(t, slt.Query, q.Kind)
	require.Equal(t, 20, q.Line)
	require.Equal(t, "IT", q.Types)
	require.Equal(t, slt.RowSort, q.Sort)
	require.Equal(t, "lbl", q.Label)
	require.Equal(t, "SELECT a,\n       'x'\nFROM t", q.SQL)
	require.Equal(t, []string{"1\tx"}, q.Expected)
	require.True(t, q.HasResult)
	require.Equal(t, []slt.Condition{{Skip: true, Tag: "config batch_size_1"}, {Skip: false, Tag: "flightd"}}, q.Conditions)

	noBlock := f.Records[4]
	require.Equal(t, "SELECT 2", noBlock.SQL)
	require.False(t, noBlock.HasResult)
	require.Empty(t, noBlock.Conditions)

	vs := f.Records[5]
	require.Equal(t, slt.ValueSort, vs.Sort)
	require.Equal(t, []string{"1.5", "2"}, vs.Expected)
}

func TestParseValueSortAfterSkip(t *testing.T) {
	f, err := slt.Parse("x", "mode skip\n\nquery I\nSELECT 1\n\nmode unskip\n\nquery R valuesort\nSELECT 1\n----\n1\n")
	require.NoError(t, err)
	require.Len(t, f.Records, 1)
	require.Equal(t, slt.ValueSort, f.Records[0].Sort)
	require.Equal(t, []string{"1"}, f.Records[0].Expected)
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, text, msg string
	}{
		{"unknown directive", "loop i 0 10\n", `x:1: not supported yet: directive "loop"`},
		{"bad statement", "statement maybe\nSELECT 1\n", "want statement ok|error"},
		{"no sql", "statement ok\n\n", "statement without SQL"},
		{"query without types", "query\nSELECT 1\n", "query needs a type string"},
		{"bad type letter", "query IX\nSELECT 1\n", `bad column type 'X'`},
		{"extra words", "query I rowsort a b\nSELECT 1\n", `unexpected "a b"`},
		{"query without sql", "query I\n----\n1\n", "query without SQL"},
		{"dangling condition", "skipif duckdb\n", "skipif/onlyif at the end"},
		{"bad regex", "statement error (\nSELECT 1\n", "bad error pattern"},
		{"block after ok", "statement ok\nSELECT 1\n----\n1\n", "---- after statement ok"},
		{"bad mode", "mode fast\n", "want mode skip|unskip"},
		{"bad require", "require\n", "want require <feature>"},
		{"bare skipif", "skipif\nquery I\nSELECT 1\n", "skipif needs a tag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := slt.Parse("x", c.text)
			require.ErrorIs(t, err, slt.ErrSyntax)
			require.ErrorContains(t, err, c.msg)
		})
	}
}
