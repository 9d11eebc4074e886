package frame

import (
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// RateLevel is a stretch in which the job's own rate held steady.
type RateLevel struct {
	Start, End time.Time
	Rate       float64 // units a second
}

// What makes a new level: a rate that differs from the level's by
// levelChange of the larger, held for at least minLevel (a shorter
// stretch joins the neighbour closer to its rate).
const (
	levelChange = 0.25
	minLevel    = 3 * time.Second
)

// RateLevels splits the job's progress in unit over [from, to] into the
// stretches where its rate held steady: from the work done where the
// readings count it, else from the rates the job stated. Empty without
// progress in unit.
func RateLevels(ps []timeline.Progress, unit string, from, to time.Time) []RateLevel {
	segs := rateSegments(ps, unit, from, to)
	var levels []RateLevel
	var work, secs float64 // of the level being built
	for _, s := range segs {
		d := s.End.Sub(s.Start).Seconds()
		if n := len(levels); n > 0 && (!differs(work/secs, s.Rate) || d < minLevel.Seconds() && d < secs) {
			work += s.Rate * d
			secs += d
			levels[n-1].End, levels[n-1].Rate = s.End, work/secs
			continue
		}
		levels = append(levels, s)
		work, secs = s.Rate*d, d
	}
	return absorbShort(levels)
}

// differs says whether two rates differ by levelChange of the larger.
func differs(a, b float64) bool {
	return math.Abs(a-b) > levelChange*math.Max(math.Abs(a), math.Abs(b))
}

// rateSegments are the stretches between consecutive readings in unit
// within [from, to], each with its rate.
func rateSegments(ps []timeline.Progress, unit string, from, to time.Time) []RateLevel {
	counted := slices.ContainsFunc(ps, func(p timeline.Progress) bool { return p.Unit == unit && !math.IsNaN(p.Done) })
	var out []RateLevel
	var prev *timeline.Progress
	for i := range ps {
		p := &ps[i]
		if p.Unit != unit || counted && math.IsNaN(p.Done) || !counted && math.IsNaN(p.Rate) {
			continue
		}
		if prev != nil {
			lo, hi := prev.At, p.At
			if lo.Before(from) {
				lo = from
			}
			if hi.After(to) {
				hi = to
			}
			if hi.After(lo) && p.At.After(prev.At) {
				rate := prev.Rate
				if counted {
					rate = max(0, p.Done-prev.Done) / p.At.Sub(prev.At).Seconds()
				}
				out = append(out, RateLevel{Start: lo, End: hi, Rate: rate})
			}
		}
		prev = p
	}
	return out
}

// absorbShort merges each level shorter than minLevel, shortest first,
// into the neighbour whose rate is closer, until none is short or one is
// left.
func absorbShort(levels []RateLevel) []RateLevel {
	for len(levels) > 1 {
		k := -1
		for i, l := range levels {
			if d := l.End.Sub(l.Start); d < minLevel && (k < 0 || d < levels[k].End.Sub(levels[k].Start)) {
				k = i
			}
		}
		if k < 0 {
			break
		}
		into := k - 1
		if k == 0 || k+1 < len(levels) && math.Abs(levels[k+1].Rate-levels[k].Rate) < math.Abs(levels[k-1].Rate-levels[k].Rate) {
			into = k + 1
		}
		lo, hi := min(k, into), max(k, into)
		levels = slices.Replace(levels, lo, hi+1, joined(levels[lo], levels[hi]))
	}
	// Neighbours that came out alike after the merging are one level.
	out := levels[:0]
	for _, l := range levels {
		if n := len(out); n > 0 && !differs(out[n-1].Rate, l.Rate) {
			out[n-1] = joined(out[n-1], l)
			continue
		}
		out = append(out, l)
	}
	return out
}

// joined is level a and the level b after it as one, its rate theirs
// weighted by their lengths.
func joined(a, b RateLevel) RateLevel {
	da, db := a.End.Sub(a.Start).Seconds(), b.End.Sub(b.Start).Seconds()
	return RateLevel{Start: a.Start, End: b.End, Rate: (a.Rate*da + b.Rate*db) / (da + db)}
}

// WarmUp is how long after from the job took to reach its working rate:
// the start of the first level within levelChange of the fastest level
// (levels are at least minLevel long, so a burst is not one). It counts
// the start-up before the first reading too. Zero without levels.
func WarmUp(levels []RateLevel, from time.Time) time.Duration {
	if len(levels) == 0 {
		return 0
	}
	fastest := levels[0].Rate
	for _, l := range levels {
		fastest = max(fastest, l.Rate)
	}
	for _, l := range levels {
		if !differs(l.Rate, fastest) {
			return max(0, l.Start.Sub(from))
		}
	}
	return 0
}
