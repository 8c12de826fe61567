package table_test

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/table"
)

// TestCreateAppendReadByPylance creates and appends with our writer in every supported
// data storage version and naming scheme, and checks what pylance sees.
func TestCreateAppendReadByPylance(t *testing.T) {
	cases := []struct {
		name   string
		format file.Version
		naming table.NamingScheme
		file   string // expected first manifest name
	}{
		{"2.0-v1", file.V2_0, table.NamingV1, "1.manifest"},
		{"2.1-v2", file.V2_1, table.NamingV2, "18446744073709551614.manifest"},
		{"2.2-v2", file.V2_2, table.NamingV2, "18446744073709551614.manifest"},
	}
	t.Parallel()
	parent := t // subtests' temporary directories vanish when they end
	var mu sync.Mutex
	dirs := map[string]string{}
	t.Run("write", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				mem := memtest.NewChecked(t)
				defer mem.AssertSize(t, 0)
				ctx := context.Background()
				ds, dir := newDataset(parent)
				b1, b2 := idNameBatch(mem, 0, 25), idNameBatch(mem, 25, 10)
				defer b1.Release()
				defer b2.Release()
				m, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b1}, &table.CreateOptions{
					DataFormat: tc.format, Write: table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem},
					Commit: table.CommitOptions{Naming: tc.naming}})
				require.NoError(t, err)
				require.Equal(t, uint64(1), m.Version())
				require.Equal(t, "_versions/"+tc.file, m.Path)
				require.Len(t, m.Fragments(), 3)
				require.Equal(t, uint32(2), m.Proto.GetMaxFragmentId())
				require.Equal(t, tc.format.String(), m.DataFormatVersion())

				m, err = ds.Append(ctx, []arrow.RecordBatch{b2}, &table.WriteOptions{Allocator: mem})
				require.NoError(t, err)
				require.Equal(t, uint64(2), m.Version())
				require.Equal(t, []uint64{0, 1, 2, 3}, fragmentIDs(m))
				_, scheme, ok := table.ParseManifestName(m.Path)
				require.True(t, ok)
				require.Equal(t, tc.naming, scheme)

				_, err = ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b1}, nil)
				require.ErrorIs(t, err, table.ErrDatasetExists)

				mu.Lock()
				dirs[tc.name] = dir
				mu.Unlock()
			})
		}
	})
	var specs []string
	for _, tc := range cases {
		if dirs[tc.name] == "" {
			return // a subtest failed
		}
		specs = append(specs, dirs[tc.name]+"@0", dirs[tc.name]+"@1")
	}
	views := pylanceViewSpecs(t, specs...)
	for i, tc := range cases {
		v, v1 := views[2*i], views[2*i+1]
		require.Equal(t, uint64(2), v.Version)
		require.Equal(t, []uint64{1, 2}, v.Versions)
		require.Equal(t, int64(35), v.Rows)
		require.Equal(t, seq(0, 35), v.IDs)
		require.Equal(t, names(seq(0, 35)), v.Names)
		require.Equal(t, [][2]any{{"id", float64(0)}, {"name", float64(1)}}, v.Fields)
		require.Equal(t, tc.format.String(), v.Storage)
		require.Equal(t, seq(0, 25), v1.IDs, tc.name)
	}
}

func fragmentIDs(m *table.Manifest) []uint64 {
	var out []uint64
	for _, f := range m.Fragments() {
		out = append(out, f.GetId())
	}
	return out
}
