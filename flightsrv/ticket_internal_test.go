package flightsrv

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
)

func testCodec(t testing.TB, secret string) *ticketCodec {
	c, err := newTicketCodec([]byte(secret))
	require.NoError(t, err)
	return c
}

func TestTicketRoundTrip(t *testing.T) {
	c := testCodec(t, "secret")
	for _, payload := range [][]byte{nil, []byte("x"), make([]byte, 300)} {
		for _, ttl := range []time.Duration{0, time.Minute} {
			got, err := c.decode(kindPlan, c.encode(kindPlan, payload, ttl))
			require.NoError(t, err)
			require.Len(t, got, len(payload))
		}
	}
}

func TestTicketRejectsForgedDamagedAndExpired(t *testing.T) {
	c := testCodec(t, "secret")
	good := c.encode(kindPlan, []byte("plan"), time.Minute)
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	cases := map[string][]byte{
		"empty":         nil,
		"foreign":       []byte("SELECT 1"),
		"truncated":     good[:len(good)-1],
		"extra byte":    append(append([]byte(nil), good...), 0),
		"flipped bit":   flipped,
		"other secret":  testCodec(t, "another").encode(kindPlan, []byte("plan"), time.Minute),
		"wrong kind":    c.encode(kindHandle, []byte("plan"), 0),
		"wrong version": append([]byte("FLTD"), 9, kindPlan, 0, 0, 0, 0, 0, 0, 0, 0, 0),
		"expired ticket": func() []byte {
			old := *c
			old.now = func() time.Time { return time.Now().Add(-2 * time.Hour) }
			return old.encode(kindPlan, []byte("plan"), time.Hour)
		}(),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := c.decode(kindPlan, b)
			require.Error(t, err)
			require.Equal(t, codes.InvalidArgument, statusOf(err).Code())
		})
	}
}

func FuzzDecodeTicket(f *testing.F) {
	c := testCodec(f, "secret")
	f.Add(c.encode(kindPlan, []byte("plan"), time.Hour))
	f.Add([]byte("FLTD\x01P\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		payload, err := c.decode(kindPlan, b)
		if err == nil {
			require.NotNil(t, payload)
		}
	})
}
