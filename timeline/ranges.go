package timeline

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

// Range is the span of values a display metric can physically take. A value
// outside it is not a reading but a fault (a driver's sentinel, a corrupt
// log, a hostile file): the Deriver turns it into a gap and counts it, so
// no mean, plot or rule ever sees it.
type Range struct {
	Min, Max float64
}

// Contains says whether v is a value of the range, give or take rounding
// (a share of two float sums can come out 1e-14 over 100 %). NaN (unknown)
// is not contained, but it is already a gap.
func (r Range) Contains(v float64) bool {
	return v >= r.Min-slack(r.Min) && v <= r.Max+slack(r.Max)
}

// slack is the rounding a bound forgives: a billionth of it, at least of
// one unit, so that 0 % forgives -1e-9 and not, as a billionth of the
// other bound would, 8 PiB's nine megabytes below zero.
func slack(bound float64) float64 {
	if math.Abs(bound) >= math.MaxFloat64 {
		return 0
	}
	return 1e-9 * max(math.Abs(bound), 1)
}

// anyFinite is the range of a metric the catalogue does not know: any
// finite number, since ±Inf is no reading of anything.
var anyFinite = Range{-math.MaxFloat64, math.MaxFloat64}

// unitRanges bound each unit generously: far beyond any GPU or host of
// today (an H200 has 141 GB and 700 W; a 2-socket host, 6 TB), yet tight
// enough that no value inside can overflow what reads it.
var unitRanges = map[Unit]Range{
	Percent:     {0, 100},
	Bytes:       {0, 1 << 53}, // 8 PiB
	BytesPerSec: {0, 1e13},    // 10 TB/s: NVLink's 900 GB/s, ten times over
	Watts:       {0, 10e3},    // 10 kW: a GPU board draws at most about 1.2 kW
	Celsius:     {-60, 250},   // a GPU's sensor from a cold start to beyond any shutdown
	MHz:         {0, 100e3},   // 100 GHz
	Count:       {0, 1 << 53}, // exact in a float64
	Seconds:     {0, 366 * 86400},
	Bits:        {0, 1 << 53},
}

// rangeOverrides are the metrics whose unit's range does not fit them.
var rangeOverrides = map[string]Range{
	ProcCPU:         {0, 100 * 4096}, // % of one core, over a tree of up to 4096 cores
	HostLoad1:       {0, 1e7},
	GPUPCIeGen:      {0, 32},
	GPUPCIeGenMax:   {0, 32},
	GPUPCIeWidth:    {0, 128},
	GPUPCIeWidthMax: {0, 128},
}

func init() {
	// A violation share is the driver's nanosecond counter over the
	// sampler's own clock: the two tick apart, so a fully held second can
	// read a little over 100 %.
	for _, v := range Violations {
		rangeOverrides[v.Share] = Range{0, 150}
	}
}

// RangeOf returns the physical range of a display metric, and false for a
// metric the catalogue does not know (whose range is any finite number).
func RangeOf(name string) (Range, bool) {
	if r, ok := rangeOverrides[name]; ok {
		return r, true
	}
	if d, ok := defs[name]; ok {
		return unitRanges[d.Unit], true
	}
	return anyFinite, false
}

// OutOfRange counts the values of one display metric that were left out as
// outside its physical range.
type OutOfRange struct {
	Name         string // display metric
	Below, Above int
	Range        Range
}

// String is the note a person reads: "412 power readings above 10 kW left
// out".
func (o OutOfRange) String() string {
	label := o.Name
	unit := Count
	if d, ok := defs[o.Name]; ok {
		label, unit = d.Label, d.Unit
	}
	n := o.Below + o.Above
	noun := "readings"
	if n == 1 {
		noun = "reading"
	}
	var where string
	switch {
	case o.Range == anyFinite:
		where = "that was no finite number"
	case o.Below == 0:
		where = "above " + limitText(unit, o.Range.Max)
	case o.Above == 0:
		where = "below " + limitText(unit, o.Range.Min)
	default:
		where = "outside " + limitText(unit, o.Range.Min) + " to " + limitText(unit, o.Range.Max)
	}
	return fmt.Sprintf("%d %s %s %s left out", n, label, noun, where)
}

// limitText writes a range's limit in its unit. It stays here, not in
// timeline/units, because the limits are round numbers that need none of
// the precision rules the units package keeps for readings.
func limitText(u Unit, v float64) string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	scaled := func(x float64, base float64, suffixes []string) string {
		i := 0
		for math.Abs(x) >= base && i < len(suffixes)-1 {
			x /= base
			i++
		}
		return num(x) + " " + suffixes[i]
	}
	switch u {
	case Percent:
		return num(v) + "%"
	case Watts:
		return scaled(v, 1000, []string{"W", "kW", "MW"})
	case Celsius:
		return num(v) + "°C"
	case MHz:
		return scaled(v, 1000, []string{"MHz", "GHz", "THz"})
	case Bytes:
		return scaled(v, 1024, []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"})
	case BytesPerSec:
		return scaled(v, 1000, []string{"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"})
	case Seconds:
		return num(v) + " s"
	}
	return num(v)
}

// rangeCounts is a Deriver's tally of values left out, by display metric.
type rangeCounts map[string]*OutOfRange

// note counts v, a value of name outside r.
func (c *rangeCounts) note(name string, r Range, v float64) {
	if *c == nil {
		*c = rangeCounts{}
	}
	o := (*c)[name]
	if o == nil {
		o = &OutOfRange{Name: name, Range: r}
		(*c)[name] = o
	}
	if v < r.Min {
		o.Below++
	} else {
		o.Above++
	}
}

// list returns the tally in name order.
func (c rangeCounts) list() []OutOfRange {
	out := make([]OutOfRange, 0, len(c))
	for _, o := range c {
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// MaxSampleGap is the longest pause between two samples of one session.
// The store and the analysis lay a session out in columns, so a sample a
// century after the one before (a hostile or corrupt file) would cost a
// century of columns; a sample further from the last one kept is left
// out, and so is everything after it, with a note (Jump). An honest
// session pauses for minutes (a hung driver, a dropped host), not days.
const MaxSampleGap = 24 * time.Hour

// Jump says that samples were left out because they came more than
// MaxSampleGap after the last one kept.
type Jump struct {
	Last    time.Time // the last sample kept
	First   time.Time // the first sample left out
	Dropped int       // samples left out
}

// String is the note a person reads.
func (j Jump) String() string {
	noun := "samples"
	if j.Dropped == 1 {
		noun = "sample"
	}
	return fmt.Sprintf("%d %s from %s on left out: more than a day after the last one before them (%s)",
		j.Dropped, noun, j.First.UTC().Format("2006-01-02 15:04:05"), j.Last.UTC().Format("2006-01-02 15:04:05"))
}

// FarAfter says whether a sample at t must be left out of a session whose
// last sample kept is at last: it comes more than MaxSampleGap after it,
// or after one that was left out. j counts them; the Store and the
// analysis each keep one, and so leave out the same samples.
func (j *Jump) FarAfter(last, t time.Time) bool {
	if t.Sub(last) <= MaxSampleGap && j.Dropped == 0 {
		return false
	}
	if j.Dropped == 0 {
		j.Last, j.First = last, t
	}
	j.Dropped++
	return true
}

// mergeOutOfRange adds two tallies by metric, in the order of list.
func mergeOutOfRange(a, b []OutOfRange) []OutOfRange {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	sum := rangeCounts{}
	for _, list := range [][]OutOfRange{a, b} {
		for _, o := range list {
			if s := sum[o.Name]; s != nil {
				s.Below += o.Below
				s.Above += o.Above
				continue
			}
			sum[o.Name] = &o
		}
	}
	return sum.list()
}
