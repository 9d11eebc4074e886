package units

import (
	"errors"
	"strconv"
	"strings"
)

// ParseBytes reads a size as people type one: 256MiB, 1.5GiB, 100MB, 512M,
// 2G, 64K. K, M and G are KiB, MiB and GiB, as top and sort read them; KB,
// MB and GB are decimal. A bare number, a negative one or NaN is no size.
func ParseBytes(s string) (float64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || v != v || v < 0 {
				break
			}
			return v * u.mult, nil
		}
	}
	return 0, errors.New("not a size")
}
