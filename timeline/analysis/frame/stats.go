package frame

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/gputop-dev/gputop/timeline/units"
)

// Evidence is numbers a person can check on screen: ranges are the 5th to
// 95th percentile (so one stray sample does not widen them), durations are
// rounded to what matters, GPUs are listed as NVML indexes (GPU1-7).

// Stat summarises values: lo and hi are the 5th and 95th percentiles.
type Stat struct {
	N            int
	Lo, Mean, Hi float64
}

func (s Stat) OK() bool { return s.N > 0 }

// Stats pools pick(g) of every GPU in gs over spans, at the columns
// keep accepts (all if nil). Long spans are thinned to about 16,384 evenly
// spread values: evidence needs a robust figure, not an exact one, and a
// day at 1 s must stay cheap to describe.
func Stats(gs []*GPU, pick func(g *GPU) *Floats, spans []Span, keep func(g *GPU, i int) bool) Stat {
	total := 0
	for _, sp := range spans {
		total += sp.Len()
	}
	stride := max(1, total*len(gs)/16384)
	buf := statBufs.Get().(*[]float32)
	defer statBufs.Put(buf)
	vals := (*buf)[:0]
	defer func() { *buf = vals[:0] }()
	sum := 0.0
	for _, g := range gs {
		xs := pick(g)
		if !xs.Has() {
			continue
		}
		for _, sp := range spans {
			for i := sp.Lo; i < sp.Hi; i += stride {
				if v := xs.At(i); v == v && (keep == nil || keep(g, i)) {
					vals = append(vals, v)
					sum += float64(v)
				}
			}
		}
	}
	return summarise(vals, sum)
}

// StatsOf is Stats of a list of values (durations, lengths), NaN ones
// left out.
func StatsOf(xs []float32) Stat {
	vals, sum := make([]float32, 0, len(xs)), 0.0
	for _, v := range xs {
		if v == v {
			vals = append(vals, v)
			sum += float64(v)
		}
	}
	return summarise(vals, sum)
}

// summarise is the Stat of vals, whose sum is sum; it reorders vals.
func summarise(vals []float32, sum float64) Stat {
	if len(vals) == 0 {
		return Stat{Lo: math.NaN(), Mean: math.NaN(), Hi: math.NaN()}
	}
	lo, hi := int(math.Round(0.05*float64(len(vals)-1))), int(math.Round(0.95*float64(len(vals)-1)))
	selectNth(vals, hi)
	selectNth(vals[:hi+1], lo)
	return Stat{N: len(vals), Lo: float64(vals[lo]), Mean: sum / float64(len(vals)), Hi: float64(vals[hi])}
}

// statBufs holds Stats' scratch: describing runs on every tick.
var statBufs = sync.Pool{New: func() any { return new([]float32) }}

// selectNth reorders xs so that xs[k] is the value a sort would put there,
// with nothing greater before it and nothing smaller after it: a
// percentile in linear time, where a sort of 16,384 values each tick would
// cost more than the rest of describing.
func selectNth(xs []float32, k int) {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		// The median of three as the pivot: sorted and flat runs, common
		// in metrics, stay linear.
		mid := lo + (hi-lo)/2
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// HostStats is Stats for a host series.
func HostStats(xs *Floats, spans []Span) Stat {
	return Stats([]*GPU{nil}, func(*GPU) *Floats { return xs }, spans, nil)
}

// ShareOf is the share of the known columns of spans where state
// holds, over the GPUs gs.
func ShareOf(gs []*GPU, spans []Span, want func(st State) bool) float64 {
	_, known, yes := countStates(gs, spans, want)
	return ratio(yes, known)
}

// ratio is n of total as a share; 0 where total is.
func ratio(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}

// countStates counts the columns of spans over the GPUs gs: all of them,
// those with a known state, and those of these where want holds (none if
// nil). Columns let go of count neither way: they were known once, and
// what was judged of them is kept.
func countStates(gs []*GPU, spans []Span, want func(st State) bool) (total, known, yes int) {
	for _, g := range gs {
		for _, sp := range spans {
			sp.Lo = max(sp.Lo, min(sp.Hi, g.State.HeldFrom()))
			total += sp.Len()
			for i := sp.Lo; i < sp.Hi; {
				run, n := g.State.Run(i, sp.Hi)
				for _, st := range run {
					if st != Unknown {
						known++
						if want != nil && want(st) {
							yes++
						}
					}
				}
				i += n
			}
		}
	}
	return total, known, yes
}

// HostShare is the share of the known columns of spans where flag is 1.
func HostShare(flag *Col[int8], spans []Span) (share float64, known bool) {
	n, yes := 0, 0
	for _, sp := range spans {
		for i := sp.Lo; i < min(sp.Hi, flag.Len()); i++ {
			if v := flag.At(i); v >= 0 {
				n++
				if v == 1 {
					yes++
				}
			}
		}
	}
	return ratio(yes, n), n > 0
}

// Range prints "lo-hi unit", or "v unit" when both round alike.
func Range(s Stat, unit string) string { return units.Range(s.Lo, s.Hi, unit) }

// During says how long a group held: "for 9m50s", or for several
// stretches "in 4 stretches over 9 min (3 min in all)".
func (f *Frame) During(g *Group) string {
	if len(g.Spans) == 1 {
		return "for " + units.Duration(f.Held(g.Spans[0]))
	}
	total := time.Duration(0)
	for _, sp := range g.Spans {
		total += f.Held(sp)
	}
	return fmt.Sprintf("in %d stretches over %s (%s in all)", len(g.Spans), units.Duration(f.Held(g.Hull)), units.Duration(total))
}

// KnownShare is the share of the columns of spans with a known state:
// gaps in a recording lower a hint's confidence. Of the columns still
// held: those let go of are no gap.
func KnownShare(gs []*GPU, spans []Span) float64 {
	total, known, _ := countStates(gs, spans, nil)
	return ratio(known, total)
}

// HostContext says what host h's CPU did over spans, for the evidence of
// rules that judge the GPU alone: "host CPU 12 % (busiest core 35 %)", or
// that the recording has no host data.
func (f *Frame) HostContext(h *Host, spans []Span) (text string, known bool) {
	cpu := HostStats(&h.CPU, spans)
	if !cpu.OK() {
		if job := HostStats(&h.Job, spans); job.OK() {
			return "the job's CPU " + units.Number(job.Mean) + "% of a core", true
		}
		return "no host CPU data in this recording", false
	}
	text = "host CPU " + units.Number(cpu.Mean) + "%"
	if top := HostStats(&h.TopCore, spans); top.OK() {
		text += " (busiest core " + units.Number(top.Mean) + "%)"
	}
	return text, true
}
