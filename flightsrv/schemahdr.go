package flightsrv

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	lru "github.com/hashicorp/golang-lru/v2"
)

// maxSchemaHeaders bounds the schema headers a Server keeps (schemaHeader).
const maxSchemaHeaders = 256

// schemaHeaders holds encoded IPC schema messages by schema. Schemas are immutable, and the
// runs of a cached plan (plancache.go) return the same schema object each time, so a
// repeated query's DoGet sends its schema without encoding it again.
type schemaHeaders = lru.Cache[*arrow.Schema, []byte]

func newSchemaHeaders() *schemaHeaders {
	c, _ := lru.New[*arrow.Schema, []byte](maxSchemaHeaders) // only fails for a size ≤ 0
	return c
}

// schemaHeader returns the IPC schema message of sc (the flatbuffer Message a DoGet's first
// FlightData carries as its data_header), encoded once per schema object. The bytes are
// shared: callers must not modify them.
func (s *Server) schemaHeader(sc *arrow.Schema) []byte {
	if hdr, ok := s.schemaHdrs.Get(sc); ok {
		return hdr
	}
	hdr := schemaMessageHeader(sc, s.env.Mem)
	s.schemaHdrs.Add(sc, hdr)
	return hdr
}

// schemaMessageHeader encodes the IPC schema message of sc, allocating with mem only
// while encoding.
func schemaMessageHeader(sc *arrow.Schema, mem memory.Allocator) []byte {
	p := ipc.GetSchemaPayload(sc, mem)
	meta := p.Meta()
	hdr := bytes.Clone(meta.Bytes())
	meta.Release()
	p.Release()
	return hdr
}
