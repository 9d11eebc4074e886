package accuracy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Outcome is one case judged: which labels gputop found and how soon, and
// what it said that no label asked for.
type Outcome struct {
	Case    Case
	Matches []Match
	// Said is every episode gputop raised, each marked true, false or
	// neutral (a hint the case allows).
	Said []Said
	// Hours is the run's length, for false warnings per hour.
	Hours float64
	Err   string
}

// Match is one label and whether gputop raised it.
type Match struct {
	Label Label
	Hit   bool
	// Delay is how long after the labelled stretch began a live screen
	// first showed the hint; negative where it never did live (or was not
	// asked live).
	Delay time.Duration
}

// Verdict says what an episode gputop raised was worth.
type Verdict int

// The verdicts of a raised episode.
const (
	Neutral Verdict = iota // a hint the case allows but does not require
	True                   // it answers a label
	False                  // no label asked for it
)

// Said is one episode gputop raised, judged.
type Said struct {
	ID       string
	GPUs     []int
	From, To time.Duration
	Severity timeline.Severity
	Evidence string
	Verdict  Verdict
}

// OK says the case was read right: every label found, nothing false, no
// warning on a healthy run, and the run judged at all.
func (o Outcome) OK() bool {
	return o.Err == "" && !slices.ContainsFunc(o.Matches, func(m Match) bool { return !m.Hit }) &&
		!slices.ContainsFunc(o.Said, o.wrong)
}

// wrong says whether an episode raised counts against the case: no label
// asked for it, or it is a warning or worse on a healthy run.
func (o Outcome) wrong(s Said) bool {
	return s.Verdict == False || o.Case.Healthy && s.Severity >= timeline.Warning
}

// Warnings counts the episodes at warning or worse that a healthy case
// raised: each is a false warning.
func (o Outcome) Warnings() int {
	if !o.Case.Healthy {
		return 0
	}
	n := 0
	for _, s := range o.Said {
		if s.Severity >= timeline.Warning {
			n++
		}
	}
	return n
}

// episodes are a hint's stretches; a hint without any is one stretch.
func episodes(h timeline.Hint) []timeline.Episode {
	if len(h.Episodes) > 0 {
		return h.Episodes
	}
	return []timeline.Episode{{Start: h.Start, End: h.End, GPUs: h.GPUs, Severity: h.Severity, Evidence: h.Evidence}}
}

// answers says whether an episode of hint id answers label l of a run that
// began at first: the same hint, overlapping stretches, a GPU in common.
func answers(l Label, id string, e timeline.Episode, first time.Time) bool {
	if id != l.ID {
		return false
	}
	from, to := first.Add(l.From), first.Add(l.To)
	// A hint of a moment (a start equal to its end) overlaps where it lies
	// within the stretch.
	if e.End.Before(from) || !e.Start.Before(to) && !e.Start.Equal(from) {
		return false
	}
	return len(l.GPUs) == 0 || len(e.GPUs) == 0 || slices.ContainsFunc(e.GPUs, func(g int) bool { return slices.Contains(l.GPUs, g) })
}

// Score judges one case by what gputop said of it.
func Score(c Case, a Answer) Outcome {
	o := Outcome{Case: c, Err: a.Err, Hours: a.Last.Sub(a.First).Hours()}
	for _, l := range c.Labels {
		m := Match{Label: l, Delay: -1, Hit: a.Err == "" && answered(l, a.Hints, a.First)}
		if m.Hit {
			m.Delay = firstSeen(l, a)
		}
		o.Matches = append(o.Matches, m)
	}
	if a.Err != "" {
		return o // not judged: nothing it said counts
	}
	for _, h := range a.Hints {
		for _, e := range episodes(h) {
			s := Said{ID: h.ID, GPUs: e.GPUs, From: e.Start.Sub(a.First), To: e.End.Sub(a.First),
				Severity: e.Severity, Evidence: e.Evidence, Verdict: False}
			if slices.Contains(c.May, h.ID) {
				s.Verdict = Neutral
			}
			if slices.ContainsFunc(c.Labels, func(l Label) bool { return answers(l, h.ID, e, a.First) }) {
				s.Verdict = True
			}
			o.Said = append(o.Said, s)
		}
	}
	return o
}

// firstSeen is how long after label l's stretch began a live screen first
// showed a hint that answers it.
func firstSeen(l Label, a Answer) time.Duration {
	for _, live := range a.Live {
		if answered(l, live.Hints, a.First) {
			return max(0, live.At.Sub(a.First.Add(l.From)))
		}
	}
	return -1
}

// answered says whether an episode of hints answers label l of a run that
// began at first.
func answered(l Label, hints []timeline.Hint, first time.Time) bool {
	for _, h := range hints {
		for _, e := range episodes(h) {
			if answers(l, h.ID, e, first) {
				return true
			}
		}
	}
	return false
}

// Figures are one hint's numbers over a set of cases.
type Figures struct {
	ID string
	// Labels is how many labelled episodes ask for it; Found how many of
	// them it answered.
	Labels, Found int
	// Right and Wrong count the episodes it raised that answered a label
	// and that answered none (neutral ones count in neither).
	Right, Wrong int
	// Delays are the times to first detection, live, of the labels found.
	Delays []time.Duration
}

// Precision is Right over Right and Wrong; 1 where it raised nothing.
func (f Figures) Precision() float64 {
	if f.Right+f.Wrong == 0 {
		return 1
	}
	return float64(f.Right) / float64(f.Right+f.Wrong)
}

// Recall is Found over Labels; 1 where nothing asked for it.
func (f Figures) Recall() float64 {
	if f.Labels == 0 {
		return 1
	}
	return float64(f.Found) / float64(f.Labels)
}

// MedianDelay is the median time to first detection; -1 without any.
func (f Figures) MedianDelay() time.Duration {
	if len(f.Delays) == 0 {
		return -1
	}
	d := slices.Clone(f.Delays)
	slices.Sort(d)
	return d[(len(d)-1)/2]
}

// MaxDelay is the longest time to first detection; -1 without any.
func (f Figures) MaxDelay() time.Duration {
	if len(f.Delays) == 0 {
		return -1
	}
	return slices.Max(f.Delays)
}

// Tally is the figures of a set of outcomes.
type Tally struct {
	Hints     []Figures // by hint id, sorted
	Cases, OK int
	// HealthyHours and HealthyWarnings are the healthy controls' length
	// and the warnings they raised.
	HealthyCases    int
	HealthyHours    float64
	HealthyWarnings int
}

// WarningsPerHour is the false warnings per hour of healthy controls.
func (t Tally) WarningsPerHour() float64 {
	if t.HealthyHours == 0 {
		return 0
	}
	return float64(t.HealthyWarnings) / t.HealthyHours
}

// Count tallies outcomes.
func Count(outcomes []Outcome) Tally {
	by := map[string]*Figures{}
	get := func(id string) *Figures {
		if by[id] == nil {
			by[id] = &Figures{ID: id}
		}
		return by[id]
	}
	var t Tally
	for _, o := range outcomes {
		t.Cases++
		if o.OK() {
			t.OK++
		}
		if o.Case.Healthy {
			t.HealthyCases++
			t.HealthyHours += o.Hours
			t.HealthyWarnings += o.Warnings()
		}
		for _, m := range o.Matches {
			f := get(m.Label.ID)
			f.Labels++
			if m.Hit {
				f.Found++
				if m.Delay >= 0 {
					f.Delays = append(f.Delays, m.Delay)
				}
			}
		}
		for _, s := range o.Said {
			switch s.Verdict {
			case True:
				get(s.ID).Right++
			case False:
				get(s.ID).Wrong++
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(by)) {
		t.Hints = append(t.Hints, *by[id])
	}
	return t
}

// Misses says, one line each, what a case got wrong and why.
func (o Outcome) Misses() []string {
	var out []string
	if o.Err != "" {
		return []string{"not judged: " + o.Err}
	}
	for _, m := range o.Matches {
		if m.Hit {
			continue
		}
		out = append(out, fmt.Sprintf("missed %s on %s %s; said instead: %s", m.Label.ID, gpuList(m.Label.GPUs),
			span(m.Label.From, m.Label.To), o.saidList(func(s Said) string { return s.ID }, ", ")))
	}
	for _, s := range o.Said {
		if o.wrong(s) {
			out = append(out, fmt.Sprintf("false %s %s on %s %s: %s", s.Severity, s.ID, gpuList(s.GPUs), span(s.From, s.To),
				oneLine(s.Evidence)))
		}
	}
	return out
}

// saidList lists what a case raised, item of each episode, each once, or
// "nothing".
func (o Outcome) saidList(item func(s Said) string, sep string) string {
	var out []string
	for _, s := range o.Said {
		if p := item(s); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, sep)
}

func gpuList(gpus []int) string {
	if len(gpus) == 0 {
		return "any GPU"
	}
	return units.GPUs(gpus)
}

func span(from, to time.Duration) string {
	return units.Clock(from) + "-" + units.Clock(to)
}

// oneLine keeps a piece of evidence to one short line for the document.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:159]) + "…"
	}
	return s
}

// Seen says whether hints, given at some moment of a run that began at
// first, answer every label of c: once they do, a live screen has shown all
// it will be timed on, and the scorer stops asking it.
func Seen(c Case, first time.Time, hints []timeline.Hint) bool {
	return !slices.ContainsFunc(c.Labels, func(l Label) bool { return !answered(l, hints, first) })
}
