package exec_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var sch = arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)

// failing yields its input, then fails.
type failing struct {
	*exectest.Source
	err error
}

func (f *failing) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := f.Source.Next(ctx)
	if b == nil && err == nil {
		return nil, f.err
	}
	return b, err
}

func TestCollect(t *testing.T) {
	errBoom := errors.New("boom")
	cases := []struct {
		name    string
		fail    error
		wantErr error
		want    exectest.Rows
	}{
		{"all", nil, nil, exectest.Rows{{1}, {2}, {3}}},
		{"error-releases-everything", errBoom, errBoom, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			bs, err := exectest.MakeBatches(mem, sch, exectest.Rows{{1}, {2}, {3}}, 2, exectest.Plain)
			require.NoError(t, err)
			src := exectest.NewSource(sch, bs)
			var op exec.Operator = src
			if c.fail != nil {
				op = &failing{Source: src, err: c.fail}
			}
			out, err := exec.Collect(context.Background(), op)
			require.ErrorIs(t, err, c.wantErr)
			require.Equal(t, 1, src.Closed)
			exectest.RequireRows(t, c.want, exectest.ToRows(out), true)
			for _, b := range out {
				b.Release()
			}
		})
	}
}

func TestEnvWithDefaults(t *testing.T) {
	env := exec.Env{}.WithDefaults()
	require.Equal(t, exec.DefaultBatchSize, env.BatchSize)
	require.Equal(t, 1, env.Parallelism)
	require.NotNil(t, env.Mem)
}
