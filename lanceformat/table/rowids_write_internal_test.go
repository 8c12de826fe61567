package table

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// TestEncodeRowIDsRoundTrip: every sequence shape encodes to segments DecodeRowIDs reads
// back exactly, with the expected segment kinds.
func TestEncodeRowIDsRoundTrip(t *testing.T) {
	seqRange := func(start, n uint64) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = start + uint64(i)
		}
		return out
	}
	cases := []struct {
		name  string
		ids   []uint64
		kinds []string
	}{
		{"one range", seqRange(100, 50), []string{"range"}},
		{"short sorted run", []uint64{3, 4, 9}, []string{"sorted_array"}},
		{"unsorted", []uint64{9, 3, 4}, []string{"array"}},
		{"holes then range", append([]uint64{0, 2, 5}, seqRange(10, 20)...), []string{"sorted_array", "range"}},
		{"range then tail", append(seqRange(0, 8), 100, 7), []string{"range", "array"}},
		{"u32 offsets", []uint64{1, 1 << 20}, []string{"sorted_array"}},
		{"u64 values", []uint64{1 << 40, 1}, []string{"array"}},
		{"max id", []uint64{^uint64(0) - 1, ^uint64(0)}, []string{"sorted_array"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := encodeRowIDs(tc.ids)
			require.NoError(t, err)
			got, err := DecodeRowIDs(b, uint64(len(tc.ids)))
			require.NoError(t, err)
			require.Equal(t, tc.ids, got)
			var seq lancepb.RowIdSequence
			require.NoError(t, proto.Unmarshal(b, &seq))
			var kinds []string
			for _, s := range seq.GetSegments() {
				kinds = append(kinds, string(s.ProtoReflect().WhichOneof(s.ProtoReflect().Descriptor().Oneofs().Get(0)).Name()))
			}
			require.Equal(t, tc.kinds, kinds)
		})
	}
}

// TestVersionSequencesRoundTrip: per-row versions are stored as runs and decoded back.
func TestVersionSequencesRoundTrip(t *testing.T) {
	cases := [][2][]uint64{
		{{1, 1, 1}, {2, 2, 2}},
		{{1, 2, 2, 1}, {4, 4, 3, 4}},
		{{7}, {7}},
	}
	for _, tc := range cases {
		f := &lancepb.DataFragment{Id: 3, PhysicalRows: uint64(len(tc[0]))}
		require.NoError(t, setVersionSequences(f, tc[0], tc[1]))
		created, err := fragmentVersions(f, true)
		require.NoError(t, err)
		updated, err := fragmentVersions(f, false)
		require.NoError(t, err)
		require.Equal(t, tc[0], created)
		require.Equal(t, tc[1], updated)
	}
	none, err := fragmentVersions(&lancepb.DataFragment{PhysicalRows: 2}, true)
	require.NoError(t, err)
	require.Nil(t, none)
	short := &lancepb.DataFragment{PhysicalRows: 5}
	require.NoError(t, setVersionSequences(short, []uint64{1, 1}, []uint64{1, 1}))
	_, err = fragmentVersions(short, true)
	require.ErrorIs(t, err, ErrCorruptFile, "runs cover fewer rows than the fragment has")
}

// TestAssignCarriedRowIDsSplits: carried ids are split over the new fragments by their
// physical rows, and a row-count mismatch is an invalid write.
func TestAssignCarriedRowIDsSplits(t *testing.T) {
	frags := []*lancepb.DataFragment{{PhysicalRows: 2}, {PhysicalRows: 3}}
	rows := carriedRows{ids: []uint64{9, 1, 2, 3, 4}, created: []uint64{1, 1, 2, 2, 2}, updated: []uint64{5, 5, 5, 5, 5}}
	require.NoError(t, assignCarriedRowIDs(frags, rows))
	for i, want := range [][]uint64{{9, 1}, {2, 3, 4}} {
		got, err := fragmentRowIDs(frags[i])
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	created, err := fragmentVersions(frags[1], true)
	require.NoError(t, err)
	require.Equal(t, []uint64{2, 2, 2}, created)
	err = assignCarriedRowIDs(frags, carriedRows{ids: []uint64{1}})
	require.ErrorIs(t, err, ErrInvalidWrite)
	_, err = fragmentRowIDs(&lancepb.DataFragment{Id: 1, PhysicalRows: 1})
	require.ErrorIs(t, err, ErrCorruptFile, "a stable-row-id fragment without a sequence")
}
