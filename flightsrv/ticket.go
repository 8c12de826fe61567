package flightsrv

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/flightd/flightd/internal/dberr"
)

// ticketMagic starts every statement ticket and prepared-statement handle flightd issues. The
// byte after it is the encoding version, so that old tickets are recognised and refused
// cleanly when the layout changes.
var ticketMagic = []byte("FLTD")

const (
	ticketVersion = 1

	kindPlan   byte = 'P' // payload: a serialized Substrait plan with pinned table versions
	kindHandle byte = 'H' // payload: the SQL text of a prepared statement
)

// encodeTicket builds the opaque bytes of a ticket or handle:
// magic | version u8 | kind u8 | payload length uvarint | payload.
func encodeTicket(kind byte, payload []byte) []byte {
	buf := make([]byte, 0, len(ticketMagic)+2+binary.MaxVarintLen64+len(payload))
	buf = append(buf, ticketMagic...)
	buf = append(buf, ticketVersion, kind)
	buf = binary.AppendUvarint(buf, uint64(len(payload)))
	return append(buf, payload...)
}

// decodeTicket checks and opens bytes made by encodeTicket with the given kind.
func decodeTicket(kind byte, b []byte) ([]byte, error) {
	bad := func(why string) error {
		return dberr.New(dberr.InvalidInput, "invalid ticket or handle: %s", why)
	}
	if !bytes.HasPrefix(b, ticketMagic) {
		return nil, bad("not issued by flightd")
	}
	b = b[len(ticketMagic):]
	if len(b) < 2 {
		return nil, bad("truncated")
	}
	if b[0] != ticketVersion {
		return nil, bad(fmt.Sprintf("encoding version %d is not supported", b[0]))
	}
	if b[1] != kind {
		return nil, bad(fmt.Sprintf("kind %q where %q was expected", b[1], kind))
	}
	n, used := binary.Uvarint(b[2:])
	if used <= 0 || n != uint64(len(b)-2-used) {
		return nil, bad("payload length does not match")
	}
	return b[2+used:], nil
}
