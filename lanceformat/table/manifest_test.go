package table_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/table"
)

func sampleManifest(version uint64) *lancepb.Manifest {
	return &lancepb.Manifest{
		Fields: []*lancepb.Field{
			{Name: "a", Id: 0, ParentId: -1, LogicalType: "int64", Nullable: true},
		},
		Fragments: []*lancepb.DataFragment{{
			Id:           0,
			PhysicalRows: 10,
			Files: []*lancepb.DataFile{{
				Path: "x.lance", Fields: []int32{0}, ColumnIndices: []int32{0},
				FileMajorVersion: 2, FileMinorVersion: 1,
			}},
		}},
		Version:    version,
		Timestamp:  timestamppb.New(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)),
		DataFormat: &lancepb.Manifest_DataStorageFormat{FileFormat: "lance", Version: "2.1"},
	}
}

func TestEncodeDecodeManifest(t *testing.T) {
	m := sampleManifest(7)
	data, err := table.EncodeManifest(m)
	require.NoError(t, err)
	got, err := table.DecodeManifest("_versions/7.manifest", data)
	require.NoError(t, err)
	require.True(t, proto.Equal(m, got.Proto))
	require.Equal(t, uint64(7), got.Version())
	require.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), got.Timestamp())
	require.Equal(t, "2.1", got.DataFormatVersion())
	require.Nil(t, got.Indices)
	require.Nil(t, got.Transaction)
}

// withSections builds a manifest file with an index section and an inline transaction.
func withSections(t *testing.T) []byte {
	idx, err := proto.Marshal(&lancepb.IndexSection{Indices: []*lancepb.IndexMetadata{{Name: "idx", Fields: []int32{0}}}})
	require.NoError(t, err)
	txn, err := proto.Marshal(&lancepb.Transaction{ReadVersion: 1, Uuid: "u", Operation: &lancepb.Transaction_Append_{Append: &lancepb.Transaction_Append{}}})
	require.NoError(t, err)
	var out []byte
	out = binary.LittleEndian.AppendUint32(out, uint32(len(idx)))
	out = append(out, idx...)
	txnPos := uint64(len(out))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(txn)))
	out = append(out, txn...)
	m := sampleManifest(2)
	zero := uint64(0)
	m.IndexSection, m.TransactionSection = &zero, &txnPos
	msg, err := proto.Marshal(m)
	require.NoError(t, err)
	pos := uint64(len(out))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(msg)))
	out = append(out, msg...)
	out = binary.LittleEndian.AppendUint64(out, pos)
	out = append(out, 0, 0, 2, 0)
	return append(out, "LANC"...)
}

func TestDecodeManifestSections(t *testing.T) {
	got, err := table.DecodeManifest("m", withSections(t))
	require.NoError(t, err)
	require.Len(t, got.Indices, 1)
	require.Equal(t, "idx", got.Indices[0].GetName())
	require.Equal(t, uint64(1), got.Transaction.GetReadVersion())
	require.NotNil(t, got.Transaction.GetAppend())
}

func TestDecodeManifestCorrupt(t *testing.T) {
	good, err := table.EncodeManifest(sampleManifest(1))
	require.NoError(t, err)
	mutate := func(f func(b []byte) []byte) []byte {
		return f(append([]byte(nil), good...))
	}
	cases := map[string][]byte{
		"empty":     nil,
		"short":     []byte("LANC"),
		"bad magic": mutate(func(b []byte) []byte { b[len(b)-1] = 'X'; return b }),
		"pos past end": mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[len(b)-16:], uint64(len(b)))
			return b
		}),
		"negative pos": mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[len(b)-16:], 1<<63)
			return b
		}),
		"length past end": mutate(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b, uint32(len(b)))
			return b
		}),
		"bad protobuf": mutate(func(b []byte) []byte { b[4] = 0xff; b[5] = 0xff; return b }),
		"bad index section": func() []byte {
			b := withSections(t)
			b[0] = 0xff // index section length runs past the manifest
			return b
		}(),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := table.DecodeManifest("_versions/1.manifest", data)
			require.ErrorIs(t, err, table.ErrCorruptManifest)
			require.Contains(t, err.Error(), "_versions/1.manifest")
		})
	}
}
