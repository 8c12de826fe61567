package flightsrv

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
)

func TestTicketRoundTrip(t *testing.T) {
	for _, payload := range [][]byte{nil, []byte("x"), make([]byte, 300)} {
		b := encodeTicket(kindPlan, payload)
		got, err := decodeTicket(kindPlan, b)
		require.NoError(t, err)
		require.Equal(t, len(payload), len(got))
	}
}

func TestTicketRejectsForeignAndDamagedBytes(t *testing.T) {
	good := encodeTicket(kindPlan, []byte("plan"))
	cases := map[string][]byte{
		"empty":         nil,
		"foreign":       []byte("SELECT 1"),
		"truncated":     good[:len(good)-1],
		"extra":         append(append([]byte(nil), good...), 0),
		"wrong version": append([]byte("FLTD"), 9, kindPlan, 0),
		"wrong kind":    encodeTicket(kindHandle, []byte("plan")),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := decodeTicket(kindPlan, b)
			require.Error(t, err)
			require.Equal(t, codes.InvalidArgument, statusOf(err).Code())
		})
	}
}

func FuzzDecodeTicket(f *testing.F) {
	f.Add(encodeTicket(kindPlan, []byte("plan")))
	f.Add([]byte("FLTD\x01P\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		payload, err := decodeTicket(kindPlan, b)
		if err == nil {
			require.Equal(t, b, encodeTicket(kindPlan, payload))
		}
	})
}
