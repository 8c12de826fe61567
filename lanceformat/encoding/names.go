package encoding

import "google.golang.org/protobuf/proto"

// encName names the variant set in an encoding message's oneof (e.g. "bitpacked",
// "inline_bitpacking"), for error messages.
func encName(m proto.Message) string {
	r := m.ProtoReflect()
	if !r.IsValid() || r.Descriptor().Oneofs().Len() == 0 {
		return "none"
	}
	if f := r.WhichOneof(r.Descriptor().Oneofs().Get(0)); f != nil {
		return string(f.Name())
	}
	return "none"
}
