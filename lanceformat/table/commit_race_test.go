package table_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// TestConcurrentAppendsAndDeletes races goroutines appending and deleting rows of one
// fragment on an atomic local store: every commit lands exactly once, versions are
// gapless, deletes of the same fragment are merged.
func TestConcurrentAppendsAndDeletes(t *testing.T) {
	t.Parallel()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, dir := newDataset(t)
	b := idNameBatch(mem, 0, 100)
	defer b.Release()
	_, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{Write: table.WriteOptions{Allocator: mem}})
	require.NoError(t, err)

	const appenders, appends, deleters = 6, 4, 4
	var g errgroup.Group
	for w := range appenders {
		g.Go(func() error {
			for i := range appends {
				id := int64(1000 + w*100 + i)
				nb := idNameBatch(mem, id, 1)
				_, err := ds.Append(ctx, []arrow.RecordBatch{nb}, &table.WriteOptions{Allocator: mem})
				nb.Release()
				if err != nil {
					return fmt.Errorf("append %d: %w", id, err)
				}
			}
			return nil
		})
	}
	for w := range deleters {
		g.Go(func() error {
			// every deleter plans on version 1 and deletes its own row of fragment 0
			_, err := ds.DeleteRows(ctx, 1, map[uint64][]uint32{0: {uint32(w)}}, "")
			return err
		})
	}
	require.NoError(t, g.Wait())

	total := uint64(1 + appenders*appends + deleters)
	vs, err := ds.Versions(ctx)
	require.NoError(t, err)
	require.Len(t, vs, int(total))
	for i, v := range vs {
		require.Equal(t, uint64(i+1), v.Version)
	}
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	dv, err := ds.ReadDeletionVector(ctx, m.Fragments()[0])
	require.NoError(t, err)
	require.Equal(t, []uint32{0, 1, 2, 3}, dv.Offsets())
	require.Len(t, m.Fragments(), 1+appenders*appends)

	want := seq(4, 96)
	for w := range appenders {
		want = append(want, seq(int64(1000+w*100), appends)...)
	}
	slices.Sort(want)
	v := pylanceViews(t, dir, 0)[0]
	require.Equal(t, want, v.IDs)
	require.Equal(t, seqU(1, total), v.Versions)
}

// raceStore makes the next `lose` manifest creations fail as if another writer had won.
type raceStore struct {
	lanceio.ObjectStore
	mu   sync.Mutex
	lose int
}

func (s *raceStore) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	s.mu.Lock()
	lose := s.lose > 0
	s.lose--
	s.mu.Unlock()
	if lose {
		return fmt.Errorf("put %s: %w", p, lanceio.ErrAlreadyExists)
	}
	return s.ObjectStore.PutIfAbsent(ctx, p, data)
}

// TestCommitRetriesAreBounded: a writer that keeps losing the race gives up with a
// retryable conflict after MaxRetries, and succeeds when it stops losing in time.
func TestCommitRetriesAreBounded(t *testing.T) {
	cases := []struct {
		lose    int
		wantErr error
	}{
		{lose: 2, wantErr: nil},
		{lose: 4, wantErr: table.ErrRetryableCommitConflict},
	}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.lose), func(t *testing.T) {
			ctx := context.Background()
			s, _ := newLinkStore(t)
			rs := &raceStore{ObjectStore: s}
			ds := table.OpenDataset(rs, "tbl.lance")
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			b := idNameBatch(mem, 0, 3)
			defer b.Release()
			_, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{Write: table.WriteOptions{Allocator: mem}})
			require.NoError(t, err)
			rs.lose = tc.lose
			_, err = ds.Commit(ctx, 1, table.NewRenameColumn("name", "label"), &table.CommitOptions{MaxRetries: 3})
			latest, lerr := ds.LatestVersion(ctx)
			require.NoError(t, lerr)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.NotErrorIs(t, err, table.ErrCommitConflict)
				require.Equal(t, uint64(1), latest)
				return
			}
			require.NoError(t, err)
			require.Equal(t, uint64(2), latest)
		})
	}
}
