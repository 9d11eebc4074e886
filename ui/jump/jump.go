package jump

import (
	"slices"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// Target is a place [ and ] go to: a marker, or the start of an episode of
// a hint or of a stall inside one, with the episode's GPUs.
type Target struct {
	At   time.Time
	Hint bool  // an episode or a stall, not a marker
	GPUs []int // the episode's
}

// Targets are every marker, the start of every episode of every hint, and
// of every stall inside an episode (a periodic stall is one episode of
// many stalls: each is a place to look), in order, made into buf; a marker
// wins over a hint at the same time.
func Targets(buf []Target, markers []timeline.Marker, hints []timeline.Hint, phases []timeline.Phase) []Target {
	out := buf[:0]
	for _, mk := range markers {
		out = append(out, Target{At: mk.At})
	}
	for _, h := range hints {
		for _, ep := range h.Episodes {
			out = append(out, Target{At: ep.Start, Hint: true, GPUs: ep.GPUs})
			for _, p := range phases {
				if p.Kind == timeline.PhaseStalled && !p.Start.Before(ep.Start) && p.Start.Before(ep.End) {
					out = append(out, Target{At: p.Start, Hint: true, GPUs: ep.GPUs})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(x, y Target) int { return x.At.Compare(y.At) })
	return slices.CompactFunc(out, func(x, y Target) bool { return x.At.Equal(y.At) })
}

// Next is where [ (dir < 0) or ] goes from the cursor at, each target
// landed on by land; false where no target lies that way. Each landing
// lies before the next target's start, so the landings keep the targets'
// order and [ retraces ].
func Next(targets []Target, at time.Time, dir int, land func(i int) time.Time) (time.Time, bool) {
	// i is the last target at or before the cursor (-1: none).
	i := sort.Search(len(targets), func(k int) bool { return targets[k].At.After(at) }) - 1
	if dir < 0 {
		switch {
		case i < 0:
		case land(i).Before(at):
			return land(i), true
		case i > 0:
			return land(i - 1), true
		}
		return time.Time{}, false
	}
	if i >= 0 {
		if l := land(i); l.After(at) {
			return l, true
		}
	}
	if i+1 < len(targets) {
		return land(i + 1), true
	}
	return time.Time{}, false
}

// Landing is where [ and ] put the cursor for targets[i]: a marker where it
// is; a hint or stall at the first column (of step), within span of its
// start, before the next target and not past last, where a hint on its
// GPUs holds as hintsAt (the screen's judgement at a moment) says, so the
// jump shows it active, not ended; where none does, its start. The hints
// are judged as of the cursor, and one is named only once a window of it
// is in (30 s and more after it began), so the moment it begins shows
// none, or the last one ended.
func Landing(targets []Target, i int, span, step time.Duration, last time.Time, hintsAt func(time.Time) []timeline.Hint) time.Time {
	t := targets[i]
	if !t.Hint || hintsAt == nil {
		return t.At
	}
	end := last
	if e := t.At.Add(span); e.Before(end) {
		end = e
	}
	if i+1 < len(targets) && !targets[i+1].At.After(end) {
		end = targets[i+1].At.Add(-1)
	}
	for c := t.At; !c.After(end); c = c.Add(step) {
		if holds(hintsAt(c), t.GPUs) {
			return c
		}
	}
	return t.At
}

// holds says whether a hint on one of gpus (on the host, for none) still
// holds.
func holds(hs []timeline.Hint, gpus []int) bool {
	for _, h := range hs {
		onHost := len(gpus) == 0 && len(h.GPUs) == 0
		if h.Ongoing && (onHost || slices.ContainsFunc(h.GPUs, func(g int) bool { return slices.Contains(gpus, g) })) {
			return true
		}
	}
	return false
}
