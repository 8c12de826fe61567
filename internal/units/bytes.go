// Package units renders quantities for people: EXPLAIN output, error messages and logs.
package units

import "fmt"

// FormatBytes renders n bytes with binary units, as EXPLAIN ANALYZE and error messages show
// them ("512 B", "1.5 KiB", "3.0 MiB").
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
