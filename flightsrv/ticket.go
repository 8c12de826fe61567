package flightsrv

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/flightd/flightd/internal/dberr"
)

// Tickets and prepared-statement handles are self-contained and authenticated, so that any
// flightd process sharing the secret can serve them and nobody else can forge them:
//
//	magic "FLTD" | version u8 | kind u8 | expiry (unix seconds, u64 BE; 0 = never) |
//	payload length uvarint | payload | HMAC-SHA256(secret, all bytes before)
//
// The version byte lets a later layout refuse old tickets cleanly.
var ticketMagic = []byte("FLTD")

const (
	ticketVersion = 1

	kindPlan   byte = 'P' // payload: a serialized Substrait plan with pinned table versions
	kindHandle byte = 'H' // payload: the SQL text of a prepared statement

	// ticketTTL bounds how long after planning a ticket may be redeemed.
	ticketTTL = time.Hour
)

// ticketCodec signs and checks tickets and handles.
type ticketCodec struct {
	secret []byte
	now    func() time.Time
}

// newTicketCodec returns a codec for the secret; an empty secret gets a random one, so tickets
// are then valid only in this process.
func newTicketCodec(secret []byte) (*ticketCodec, error) {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("ticket secret: %w", err)
		}
	}
	return &ticketCodec{secret: secret, now: time.Now}, nil
}

// encode builds the bytes of a ticket (ttl > 0) or a handle that never expires (ttl == 0).
func (c *ticketCodec) encode(kind byte, payload []byte, ttl time.Duration) []byte {
	var expiry uint64
	if ttl > 0 {
		expiry = uint64(c.now().Add(ttl).Unix())
	}
	buf := make([]byte, 0, len(ticketMagic)+10+binary.MaxVarintLen64+len(payload)+sha256.Size)
	buf = append(buf, ticketMagic...)
	buf = append(buf, ticketVersion, kind)
	buf = binary.BigEndian.AppendUint64(buf, expiry)
	buf = binary.AppendUvarint(buf, uint64(len(payload)))
	buf = append(buf, payload...)
	return append(buf, c.mac(buf)...)
}

func (c *ticketCodec) mac(b []byte) []byte {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte("flightd ticket\x00")) // domain separation from tokens signed with the same secret
	m.Write(b)
	return m.Sum(nil)
}

// decode checks bytes made by encode with the given kind and returns the payload.
func (c *ticketCodec) decode(kind byte, b []byte) ([]byte, error) {
	bad := func(why string) error {
		return dberr.New(dberr.InvalidInput, "invalid ticket or handle: %s", why)
	}
	const head = 4 + 2 + 8
	if !bytes.HasPrefix(b, ticketMagic) {
		return nil, bad("not issued by flightd")
	}
	if len(b) < head+1+sha256.Size {
		return nil, bad("truncated")
	}
	if b[4] != ticketVersion {
		return nil, bad(fmt.Sprintf("encoding version %d is not supported", b[4]))
	}
	body, mac := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if !hmac.Equal(mac, c.mac(body)) {
		return nil, bad("signature does not match (forged, damaged, or issued with another secret)")
	}
	if b[5] != kind {
		return nil, bad(fmt.Sprintf("kind %q where %q was expected", b[5], kind))
	}
	if exp := binary.BigEndian.Uint64(b[6:14]); exp != 0 && uint64(c.now().Unix()) > exp {
		return nil, bad("expired")
	}
	n, used := binary.Uvarint(body[head:])
	if used <= 0 || n != uint64(len(body)-head-used) {
		return nil, bad("payload length does not match")
	}
	return body[head+used:], nil
}
