package importer

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Every value is checked where it enters, against its metric's physical
// range (timeline.RangeOf, on the display metric the raw one becomes): a
// power of 1e19 W or a utilisation of -5 % is no reading but a fault (a
// driver's sentinel, a corrupt log, a hostile file). It is left out, a gap
// like a missing reading, and counted, and the import says so in one note
// per metric, in the Deriver's words ("412 power readings above 10 kW left
// out"). A counter's raw value (energy in J) must be finite and not
// negative; its rate is checked again when it is derived.

// counterRange is what a counter's raw value may be.
var counterRange = timeline.Range{Min: 0, Max: math.MaxFloat64}

// RangeTally counts the readings left out, by metric.
type RangeTally struct {
	by map[string]*timeline.OutOfRange
	// last is the range of the metric checked last: values come in the
	// same column order row after row, so it is nearly always the one.
	lastName  string
	lastRange timeline.Range
}

// Check is v, or NaN (counted) where v is outside metric's range. NaN
// stays NaN: an unknown reading is already a gap.
func (c *RangeTally) Check(metric string, v float64) float64 {
	if metric != c.lastName {
		c.lastName = metric
		c.lastRange, _ = timeline.RangeOf(metric)
	}
	return c.against(metric, c.lastRange, v)
}

// CheckCounter is Check for a counter's raw value.
func (c *RangeTally) CheckCounter(metric string, v float64) float64 {
	return c.against(metric, counterRange, v)
}

func (c *RangeTally) against(metric string, r timeline.Range, v float64) float64 {
	if math.IsNaN(v) || within(r, v) {
		return v
	}
	if c.by == nil {
		c.by = map[string]*timeline.OutOfRange{}
	}
	o := c.by[metric]
	if o == nil {
		o = &timeline.OutOfRange{Name: metric, Range: r}
		c.by[metric] = o
	}
	if v < r.Min {
		o.Below++
	} else {
		o.Above++
	}
	return math.NaN()
}

// within is Range.Contains for a reading: each bound with a rounding slack
// of its own size. Contains takes one slack from the larger bound, made
// for derived shares, which lets a raw memory reading of -9 MB or a
// throttle mask of -4 by (8 PiB and 2^53 are large).
func within(r timeline.Range, v float64) bool {
	lo := r.Min - 1e-9*max(math.Abs(r.Min), 1)
	hi := r.Max
	if r.Max < math.MaxFloat64 {
		hi += 1e-9 * max(math.Abs(r.Max), 1)
	}
	return v >= lo && v <= hi
}

// Notes are the tally's notes, one per metric, in metric order.
func (c *RangeTally) Notes() []string {
	list := slices.SortedFunc(maps.Values(c.by), func(a, b *timeline.OutOfRange) int { return cmp.Compare(a.Name, b.Name) })
	out := make([]string, len(list))
	for i, o := range list {
		out[i] = o.String()
	}
	return out
}

// cutJumps keeps the times (in order) up to the first that comes more than
// timeline.MaxSampleGap after the one before, as the Store and the Engine
// would (timeline.Jump): the rest are left out at import, with a note,
// rather than written into a recording that lays them out a century wide.
// It returns how many to keep.
func cutJumps(times []int64, note func(string)) int {
	var j timeline.Jump
	for i := 1; i < len(times); i++ {
		if j.FarAfter(time.Unix(0, times[i-1]), time.Unix(0, times[i])) {
			j.Dropped = len(times) - i
			note(j.String())
			return i
		}
	}
	return len(times)
}
