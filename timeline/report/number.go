package report

import (
	"math"
	"strconv"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Number is a float that is null in JSON when unknown (NaN), because an
// unknown must never read as zero.
type Number float64

// Unknown says whether n is unknown: NaN, or an infinity, which every
// form writes as unknown (N/A, null), never as a number.
func (n Number) Unknown() bool { return math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) }

// Duration is n, a report time in seconds, as a time.Duration, to the
// nearest nanosecond.
func (n Number) Duration() time.Duration {
	return time.Duration(math.Round(float64(n) * float64(time.Second)))
}

// MarshalJSON writes null for NaN and infinities. Whole numbers (bytes,
// MHz) are exact; others keep nine significant digits, so a rate computed
// from two counters reads 400000000, not 399999999.99999994.
func (n Number) MarshalJSON() ([]byte, error) {
	if n.Unknown() {
		return []byte("null"), nil
	}
	f := float64(n)
	if f != math.Trunc(f) || math.Abs(f) >= 1<<53 {
		f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', 9, 64), 64)
	}
	return strconv.AppendFloat(nil, f, 'f', -1, 64), nil
}

// UnmarshalJSON reads null as NaN.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Number(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*n = Number(f)
	return err
}

// MIGOf is GPU idx's MIG profile and parent where it is a MIG instance.
func MIGOf(info timeline.SourceInfo, idx int) (string, *int) {
	for _, g := range info.GPUs {
		if g.Index == idx && g.IsMIGInstance() {
			return MIGOfGPU(g)
		}
	}
	return "", nil
}

// MIGOfGPU is g's MIG profile and parent where it is a MIG instance.
func MIGOfGPU(g timeline.GPUInfo) (string, *int) {
	if !g.IsMIGInstance() {
		return "", nil
	}
	parent := g.MIGParent
	return g.MIGProfile, &parent
}
