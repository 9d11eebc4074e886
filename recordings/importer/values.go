package importer

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// unit says what a column's values measure, and so which unit suffixes a
// value may carry and how it is scaled to gputop's units (timeline/metrics.go:
// bytes, W, %, MHz, °C).
type unit uint8

const (
	unitNone        unit = iota // a plain number: no suffix allowed
	unitPercent                 // "96 %"
	unitWatts                   // "305.81 W"
	unitCelsius                 // "71 C"
	unitMHz                     // "1410 MHz"
	unitMiB                     // "17959 MiB"; nvidia-smi's "MB" is MiB too
	unitRatio                   // DCGM's 0..1 activity ratios, shown as %
	unitMBps                    // dmon's rxpci/txpci "MB/s", MiB per second
	unitBytesPerSec             // DCGM's PCIe bytes per second
)

// Byte multiples. nvidia-smi (query CSV and dmon alike) prints MiB and calls
// it MB in dmon's unit line, so MB is read as MiB throughout.
const (
	kib = 1 << 10
	MiB = 1 << 20
	gib = 1 << 30
)

// memoryUnits are the suffixes of memory values and the bytes in one unit.
var memoryUnits = []struct {
	suffix string
	scale  float64
}{{"MiB", MiB}, {"MB", MiB}, {"GiB", gib}, {"GB", gib}, {"KiB", kib}, {"KB", kib}, {"B", 1}, {"bytes", 1}}

// memoryScale gives the bytes in one unit of a memory suffix, any case.
func memoryScale(suffix string) (float64, bool) {
	for _, u := range memoryUnits {
		if strings.EqualFold(suffix, u.suffix) {
			return u.scale, true
		}
	}
	return 0, false
}

// naWords are the values that mean "no reading" (compared without case).
// Anything in square brackets, like nvidia-smi's [N/A], [Not Supported] and
// [Unknown Error], also means no reading.
var naWords = []string{"-", "n/a", "na", "nan", "null", "none", "not supported", "unknown error", "err!", "unknown"}

// isNA says whether a trimmed value means "no reading" (NaN, never 0).
func isNA(s string) bool {
	switch {
	case s == "":
		return true
	case s[0] >= '0' && s[0] <= '9':
		return false // the common case: a number
	case len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']':
		return true
	}
	return slices.ContainsFunc(naWords, func(w string) bool { return strings.EqualFold(s, w) })
}

// splitNumber splits "305.81 W" into the number and its unit suffix. It
// takes only decimal numbers, so "0x1p3" and "Inf" are not numbers.
func splitNumber(s string) (num, suffix string) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := false
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		digits = digits || s[i] != '.'
		i++
	}
	if !digits {
		return "", s
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '-' || s[j] == '+') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// parseValue reads one metric value of unit u, with or without a unit
// suffix, scaled to gputop's unit. memScale is the bytes per unit of a
// memory value that has no suffix (the header's unit, MiB by default).
// A value that means "no reading" is NaN.
func parseValue(s string, u unit, memScale float64) (float64, error) {
	if isNA(s) {
		return math.NaN(), nil
	}
	num, suffix := splitNumber(s)
	v, err := strconv.ParseFloat(num, 64) // "" when s has no digits: an error
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	scale, ok := unitScale(u, suffix, memScale)
	if !ok {
		return 0, fmt.Errorf("%q: unexpected unit %q", s, suffix)
	}
	return v * scale, nil
}

// unitScale checks a value's unit suffix against its column's unit and
// returns the factor to gputop's unit.
func unitScale(u unit, suffix string, memScale float64) (float64, bool) {
	switch u {
	case unitMiB:
		if suffix == "" {
			return memScale, true
		}
		return memoryScale(suffix)
	case unitRatio:
		return 100, suffix == ""
	case unitMBps:
		return MiB, suffix == "" || strings.EqualFold(suffix, "MB/s")
	}
	if suffix == "" {
		return 1, true
	}
	switch u {
	case unitPercent:
		return 1, suffix == "%"
	case unitWatts:
		return 1, suffix == "W"
	case unitCelsius:
		return 1, suffix == "C" || suffix == "°C"
	case unitMHz:
		return 1, strings.EqualFold(suffix, "MHz")
	case unitBytesPerSec:
		return 1, strings.EqualFold(suffix, "B/s")
	}
	return 1, false
}

// parseHexMask reads nvidia-smi's clock-event reasons bitmask, like
// "0x0000000000000004". A missing reading is ok=false with no error.
func parseHexMask(s string) (mask uint64, ok bool, err error) {
	if isNA(s) {
		return 0, false, nil
	}
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	mask, err = strconv.ParseUint(h, 16, 64)
	if err != nil || h == s {
		return 0, false, fmt.Errorf("%q is not a hexadecimal bitmask", s)
	}
	return mask, true, nil
}

// parseActive reads one clock-event reason column: "Active" or "Not Active".
func parseActive(s string) (active, ok bool, err error) {
	switch {
	case isNA(s):
		return false, false, nil
	case strings.EqualFold(s, "Active"):
		return true, true, nil
	case strings.EqualFold(s, "Not Active"):
		return false, true, nil
	}
	return false, false, fmt.Errorf("%q is neither Active nor Not Active", s)
}

// parseIndex reads a GPU index or DCGM entity id.
func parseIndex(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxGPUIndex {
		return 0, fmt.Errorf("GPU index %q: want a number from 0 to %d", s, MaxGPUIndex)
	}
	return n, nil
}

// MaxGPUIndex bounds GPU indices and entity ids: far above any real host,
// low enough that a corrupt log cannot make thousands of devices.
const MaxGPUIndex = 1023
