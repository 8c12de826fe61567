package substrait

import _ "embed"

// ExtensionYAML is the Substrait extension file declaring flightd's own functions (URN).
// Consumers that validate plans against their extension collection load it under URI.
//
//go:embed functions.yaml
var ExtensionYAML []byte
