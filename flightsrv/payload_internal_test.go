package flightsrv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

func TestTicketPayloadRoundTrip(t *testing.T) {
	id := newQueryID()
	require.False(t, id.isZero())
	require.Len(t, id.String(), 32)
	require.Empty(t, queryID{}.String())
	cases := []ticketPayload{
		{Shard: plan.Shard{Index: 0, Count: 1}, Plan: []byte("plan")},
		{Shard: plan.Shard{Index: 2, Count: 3}, Analyze: true, Query: id, Plan: []byte("plan")},
		{Query: id},
	}
	for _, tp := range cases {
		got, err := decodeTicketPayload(tp.encode())
		require.NoError(t, err)
		require.Equal(t, tp.Shard, got.Shard)
		require.Equal(t, tp.Analyze, got.Analyze)
		require.Equal(t, tp.Query, got.Query)
		require.Equal(t, string(tp.Plan), string(got.Plan))
	}
	// A ticket from before query ids (flags without flagQueryID) still opens, without an id.
	old := append([]byte{0, 1, flagAnalyze}, "plan"...)
	got, err := decodeTicketPayload(old)
	require.NoError(t, err)
	require.True(t, got.Query.isZero())
	require.Equal(t, "plan", string(got.Plan))
	// A query id flag without the id bytes, and unknown flags, are refused.
	for _, bad := range [][]byte{{0, 1, flagQueryID, 1, 2}, {0, 1, 0x80}} {
		_, err := decodeTicketPayload(bad)
		require.ErrorContains(t, err, "invalid ticket")
	}
}
