package work

import (
	"math"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Unit is the unit most of ps are in ("" if none): a job that
// names two (a bar's "it", then a summary's "sample") is measured in the
// one it used most.
func Unit(ps []timeline.Progress) string {
	n := map[string]int{}
	best := ""
	for _, p := range ps {
		n[p.Unit]++
		if n[p.Unit] >= n[best] {
			best = p.Unit
		}
	}
	return best
}

// Rate is the job's rate in unit over [from, to] and how much of
// that time the readings cover. Where they count the work done (Done), it
// is the work done within the window over the time covered, the work
// between two readings taken as spread evenly between them; where they
// state only rates, each rate stands until the next reading, time-weighted,
// and a lone reading in the window is its own rate. No rate stands before
// the first reading or after the last: a checkpoint after the job's last
// progress line did not run at its rate. NaN if no reading says.
func Rate(ps []timeline.Progress, unit string, from, to time.Time) (float64, time.Duration) {
	if done, _, covered := countedWork(ps, unit, from, to); covered > 0 {
		return done / covered.Seconds(), covered
	}
	return statedRate(ps, unit, from, to)
}

// countedWork is the work the readings' Done says was done within [from,
// to], between readings and before the first, and the time the readings
// cover there. Done counts from the job's start, so the job's first
// reading carries the work done before it ("step 5" is five steps, tqdm's
// first "2/200" two): it is in before where that reading is in the
// window, and not in the time covered, which is not known. Only a reading
// of the job's own output counts so: gputop run sees it from its first
// line, where a mark's count may include work from before the recording.
// ps must start with the store's first reading for before to be right.
func countedWork(ps []timeline.Progress, unit string, from, to time.Time) (between, before float64, covered time.Duration) {
	var prev *timeline.Progress
	for i := range ps {
		p := &ps[i]
		if p.Unit != unit || math.IsNaN(p.Done) {
			continue
		}
		if prev == nil && p.Origin == timeline.JobOrigin && !p.At.Before(from) && !p.At.After(to) {
			before = p.Done
		}
		if prev != nil {
			seg := p.At.Sub(prev.At)
			if part := timeline.Overlap(prev.At, p.At, from, to); seg > 0 && part > 0 && p.Done >= prev.Done {
				between += (p.Done - prev.Done) * part.Seconds() / seg.Seconds()
				covered += part
			}
		}
		prev = p
	}
	return between, before, covered
}

// statedRate is Rate from the rates the job stated.
func statedRate(ps []timeline.Progress, unit string, from, to time.Time) (float64, time.Duration) {
	var sum, plain float64
	var covered time.Duration
	n := 0
	for i := range ps {
		p := ps[i]
		if p.Unit != unit || math.IsNaN(p.Rate) {
			continue
		}
		end := p.At // the last rate stands for no time after it
		for j := i + 1; j < len(ps); j++ {
			if ps[j].Unit == unit && !math.IsNaN(ps[j].Rate) {
				end = ps[j].At
				break
			}
		}
		if part := timeline.Overlap(p.At, end, from, to); part > 0 {
			sum += p.Rate * part.Seconds()
			covered += part
		}
		if !p.At.Before(from) && !p.At.After(to) {
			plain += p.Rate
			n++
		}
	}
	switch {
	case covered > 0:
		return sum / covered.Seconds(), covered
	case n > 0:
		return plain / float64(n), 0
	}
	return math.NaN(), 0
}

// Done is the work done in unit over [from, to], where the
// readings count it (NaN if they do not), the work before the job's first
// reading included (countedWork).
func Done(ps []timeline.Progress, unit string, from, to time.Time) float64 {
	between, before, covered := countedWork(ps, unit, from, to)
	if covered > 0 || before > 0 {
		return between + before
	}
	return math.NaN()
}

// Within says whether a reading in unit lies within [from, to]:
// whether the job said anything of its progress there.
func Within(ps []timeline.Progress, unit string, from, to time.Time) bool {
	i := sort.Search(len(ps), func(i int) bool { return !ps[i].At.Before(from) })
	for ; i < len(ps) && !ps[i].At.After(to); i++ {
		if ps[i].Unit == unit {
			return true
		}
	}
	return false
}
