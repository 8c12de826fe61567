package table

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
)

// NamingScheme is how manifest files are named in _versions/.
type NamingScheme int

const (
	// NamingV1 names version v "{v}.manifest".
	NamingV1 NamingScheme = iota + 1
	// NamingV2 names version v "{u64max - v}.manifest" in 20 zero-padded digits, so that
	// lexical order is newest first.
	NamingV2
)

// String implements fmt.Stringer.
func (s NamingScheme) String() string {
	switch s {
	case NamingV1:
		return "V1"
	case NamingV2:
		return "V2"
	default:
		return "unknown"
	}
}

const (
	manifestSuffix = ".manifest"
	v2NameLen      = 20 + len(manifestSuffix)
	versionsDir    = "_versions/"
)

// ParseManifestName parses the base name of a file in _versions/. It reports ok=false for
// anything that is not a committed manifest: detached versions ("d..."), staging files
// ("{x}.manifest-{uuid}", "{x}.manifest#1"), temporary files, the hint file and
// _latest.manifest.
func ParseManifestName(name string) (version uint64, scheme NamingScheme, ok bool) {
	name = path.Base(name)
	stem, found := strings.CutSuffix(name, manifestSuffix)
	if !found || stem == "" || stem[0] == 'd' {
		return 0, 0, false
	}
	for i := range len(stem) {
		if stem[i] < '0' || stem[i] > '9' {
			return 0, 0, false
		}
	}
	n, err := strconv.ParseUint(stem, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if len(name) == v2NameLen {
		return math.MaxUint64 - n, NamingV2, true
	}
	return n, NamingV1, true
}

// ManifestName is the base name of version v's manifest under scheme s.
func ManifestName(s NamingScheme, v uint64) string {
	if s == NamingV2 {
		return fmt.Sprintf("%020d", uint64(math.MaxUint64)-v) + manifestSuffix
	}
	return strconv.FormatUint(v, 10) + manifestSuffix
}
