package table_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/table"
)

// TestEncodeDeletionArrowRoundTrip: what we write as an Arrow deletion file decodes to the
// same sorted offsets.
func TestEncodeDeletionArrowRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		in   []uint32
		want []uint32
	}{
		{"one", []uint32{7}, []uint32{7}},
		{"unsorted", []uint32{9, 1, 5}, []uint32{1, 5, 9}},
		{"max", []uint32{0, 4999}, []uint32{0, 4999}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, err := table.EncodeDeletionArrow(tc.in)
			require.NoError(t, err)
			got, err := table.DecodeDeletionArrow(data, 5000)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			_, err = table.DecodeDeletionArrow(data, uint64(tc.want[len(tc.want)-1]))
			require.Error(t, err, "an offset at the limit is rejected")
		})
	}
}

// TestTransactionsRecorded: every commit records its transaction in _transactions/, named
// after the version it was built on, with the operation it performed.
func TestTransactionsRecorded(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, dir := newDataset(t)
	b := idNameBatch(mem, 0, 4)
	defer b.Release()
	_, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{Write: table.WriteOptions{Allocator: mem}})
	require.NoError(t, err)
	_, err = ds.DeleteRows(ctx, 1, map[uint64][]uint32{0: {2}}, "id = 2")
	require.NoError(t, err)
	m, err := ds.Commit(ctx, 2, table.NewRenameColumn("name", "label"), &table.CommitOptions{Properties: map[string]string{"who": "test"}})
	require.NoError(t, err)
	want := []struct {
		op   string
		read uint64
	}{{"overwrite", 0}, {"delete", 1}, {"project", 2}}
	for i, w := range want {
		mv, err := ds.Checkout(ctx, uint64(i+1))
		require.NoError(t, err)
		txn, err := ds.ReadTransaction(ctx, mv)
		require.NoError(t, err)
		require.Equal(t, w.op, table.OperationName(txn))
		require.Equal(t, w.read, txn.GetReadVersion())
		require.Regexp(t, `^\d+-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.txn$`, mv.Proto.GetTransactionFile())
		require.Equal(t, table.WriterLibrary, mv.Proto.GetWriterVersion().GetLibrary())
	}
	txn, err := ds.ReadTransaction(ctx, m)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"who": "test"}, txn.GetTransactionProperties())
	require.Equal(t, []string{"_transactions/0-", "_transactions/1-", "_transactions/2-"}, prefixes(listFiles(t, dir, "_transactions"), 16))
	hint := listFiles(t, dir, "_versions")
	require.Contains(t, hint, "_versions/latest_version_hint.json")
}

func prefixes(ss []string, n int) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s[:min(n, len(s))]
	}
	return out
}

// TestVersionWithoutTransactionIsRetryable: a committed version that records no
// transaction cannot be checked for conflicts, so committing past it is refused as
// retryable (as Lance does), and a re-planned commit succeeds.
func TestVersionWithoutTransactionIsRetryable(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, _ := newDataset(t)
	b := idNameBatch(mem, 0, 4)
	defer b.Release()
	v1, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{
		Write: table.WriteOptions{Allocator: mem}, Commit: table.CommitOptions{Naming: table.NamingV1}})
	require.NoError(t, err)
	bare := proto.Clone(v1.Proto).(*lancepb.Manifest)
	bare.Version, bare.TransactionFile = 2, ""
	data, err := table.EncodeManifest(bare)
	require.NoError(t, err)
	require.NoError(t, ds.Store().PutIfAbsent(ctx, "_versions/2.manifest", data))

	_, err = ds.Commit(ctx, 1, table.NewRenameColumn("name", "label"), nil)
	require.ErrorIs(t, err, table.ErrRetryableCommitConflict)
	m, err := ds.Commit(ctx, 2, table.NewRenameColumn("name", "label"), nil)
	require.NoError(t, err)
	require.Equal(t, "_versions/3.manifest", m.Path)
}
