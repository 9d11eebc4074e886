package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/analysis/hosts"
	"github.com/gputop-dev/gputop/timeline/analysis/rules"
	"github.com/gputop-dev/gputop/timeline/units"
)

// hintRules lists every rule, the one place a rule is added; evaluate runs
// them in this order (Engine.Hints).
var hintRules = []frame.Rule{
	rules.GPUImbalance,
	rules.PeriodicStall,
	rules.InputBound,
	rules.HostSingleThread,
	rules.IOWait,
	rules.BusyWait,
	rules.IdleMemoryHeld,
	rules.LowUtilization,
	rules.GPUIdle,
	rules.AllocatedIdle,
	rules.PowerCapped,
	rules.ThermalThrottle,
	rules.MemoryPressure,
	rules.MemoryHeadroom,
	rules.PCIeBound,
	rules.FrozenTelemetry,
	// From the job's own progress (rules/progress.go).
	rules.ThroughputDrop,
	rules.ProgressStalled,
	rules.WarmUp,
	// Across the hosts of a session of several (analysis/hosts), after
	// the rules of one GPU or one host.
	hosts.HostIdle,
	hosts.HostLate,
	hosts.StragglerHost,
	hosts.UnevenMemory,
}

// Hints returns what gputop says of the session up to t: the hints of
// `gputop report --to t`, and of the screen whose cursor is at t, live or in
// a replay. It runs every rule over the columns up to t and returns the
// hints worst first: by severity, then confidence, then duration.
//
// One finding is one hint: a rule holding on some GPUs in several
// stretches, or on different GPUs at different times, is a single hint
// whose episodes (largest first, each with its GPUs, times, severity and
// numbers) are listed inside it, as bad as the worst of them. Rules judge whole windows (30 s and longer) with hysteresis,
// never single samples, and a rule whose signals are missing stays silent.
// Until a rule's first full window is in, a reading of what there is (from
// 20 s on) is given, marked Provisional.
//
// The verdicts of windows and the descriptions of episodes that are over
// are kept, so asking again a moment later costs little
// (BenchmarkEngine).
func (e *Engine) Hints(t time.Time) []timeline.Hint {
	e.settle()
	f := e.viewAt(t)
	c := &e.cache
	// Asked again about the same columns: the same answer, unless one of
	// them was still being filled and has had samples since.
	if f.N == c.hintsN && (e.samples == c.hintsSamples || !c.hintsOpen) {
		return c.hints
	}
	// Every rule's, the hardware's last (hints_errors.go), sorted once.
	hints := e.health.linkDegraded(f, e.health.gpuErrors(f, e.evaluate(f)))
	SortHints(hints)
	inSession(hints, f)
	c.hintsN, c.hintsSamples, c.hintsOpen, c.hints = f.N, e.samples, f.N == e.f.N, hints
	return hints
}

// inSession moves the start of a hint, and of its episodes, that falls
// before the first sample to it, and an end past the view's last sample
// back to it (Frame.Last): columns start on the clock's multiples of
// their width, so the first one starts up to a column before the session
// does (a report said "-0:00:01"), and the last one ends a column after its
// last sample (a hint was "last seen 04:46:19" in a file that ends at
// 04:46:18). The rules that set a hint's times from columns (Frame.EndAt)
// cut them so already; this holds for every rule.
func inSession(hints []timeline.Hint, f *frame.Frame) {
	clip := func(start, end *time.Time) {
		if start.Before(f.First) {
			*start = f.First
		}
		if !f.Last.IsZero() && end.After(f.Last) {
			*end = f.Last
		}
	}
	for i := range hints {
		h := &hints[i]
		clip(&h.Start, &h.End)
		for k := range h.Episodes {
			clip(&h.Episodes[k].Start, &h.Episodes[k].End)
		}
	}
}

// evaluate runs every windowed rule over the view, in hintRules' order.
func (e *Engine) evaluate(f *frame.Frame) []timeline.Hint {
	if len(f.GPUs) == 0 || time.Duration(f.N)*f.Step < frame.ProvisionalMin {
		return nil
	}
	var cands []frame.Cand
	for _, r := range hintRules {
		cands = append(cands, r.Find(f)...)
	}
	cands = hosts.Suppress(f, hintSuppress(cands))
	var hints []timeline.Hint
	for _, r := range hintRules {
		var fd finding
		for _, g := range frame.Groups(r.ID, cands) {
			if h, ok := e.describe(f, r, g); ok {
				grace := cmp.Or(g.Grace, int(2*f.Opts.Window/f.Step))
				fd.add(h, g.Firm, g.Hull.Hi+grace >= f.N)
			}
		}
		hints = fd.appendTo(hints, f)
	}
	return hints
}

// CriticalConfidence is the least confidence a critical hint has: an
// episode less sure than this is a warning, whatever its rule says.
const CriticalConfidence = 0.5

// describe is a rule's hint for one episode, kept once described: its
// columns are closed when it ends before the view's last one, and a
// description reads nothing else.
func (e *Engine) describe(f *frame.Frame, r frame.Rule, g *frame.Group) (timeline.Hint, bool) {
	key := ""
	if closed := g.Hull.Hi < f.Closed(); closed {
		key = describeKey(r.ID, g)
		if d, ok := e.cache.described[key]; ok {
			return d.hint, d.ok
		}
	}
	h, ok := r.Describe(f, g)
	if ok {
		h.ID = r.ID
		h.GPUs = g.GPUs
		h.Start, h.End = f.StartAt(g.Hull.Lo), f.EndAt(g.Hull.Hi)
		h.Confidence = math.Round(h.Confidence*f.LengthFactor(g.Hull)*100) / 100
		if h.Severity == timeline.Critical && h.Confidence < CriticalConfidence {
			// A rule sets the severity from how bad the problem would be,
			// the confidence from how sure the data make it: a short or
			// patchy reading cannot carry "critical" (it read "CRITICAL
			// ... confidence 49%").
			h.Severity = timeline.Warning
		}
	}
	if key != "" {
		c := e.cache.described
		if len(c) >= maxDescribed {
			clear(c)
		}
		c[key] = described{h, ok}
	}
	return h, ok
}

// hintSuppress drops every candidate that yields (Rule.YieldsTo) to a
// candidate of another rule on the same GPU whose stretch covers at least
// half of its own: that rule names the cause. Each candidate is set only
// against those of its own GPU: 64 hosts' 512 GPUs give thousands of
// candidates, and setting each against every other was a third of what
// their hints cost (BenchmarkEngineHosts).
func hintSuppress(cands []frame.Cand) []frame.Cand {
	yields := map[string][]string{}
	for _, r := range hintRules {
		yields[r.ID] = r.YieldsTo
	}
	// The candidates' indexes in order of GPU: those of one GPU side by side.
	byGPU := make([]int, len(cands))
	for i := range byGPU {
		byGPU[i] = i
	}
	slices.SortFunc(byGPU, func(a, b int) int { return cmp.Compare(cands[a].GPU, cands[b].GPU) })
	out := cands[:0:0]
	for i := range cands {
		c := &cands[i]
		covered := false
		if to := yields[c.ID]; len(to) > 0 {
			k, _ := slices.BinarySearchFunc(byGPU, c.GPU, func(j, gpu int) int { return cmp.Compare(cands[j].GPU, gpu) })
			for ; k < len(byGPU) && cands[byGPU[k]].GPU == c.GPU; k++ {
				if d := &cands[byGPU[k]]; slices.Contains(to, d.ID) && frame.Covered(c.Spans, d.Hull()) >= 0.5 {
					covered = true
					break
				}
			}
		}
		if !covered {
			out = append(out, *c)
		}
	}
	return out
}

// describeKey names an episode: its rule, its candidates' key, GPUs and
// columns.
func describeKey(id string, g *frame.Group) string {
	b := []byte(id)
	b = append(b, 0)
	b = append(b, g.Cands[0].Key...)
	for _, idx := range g.GPUs {
		b = strconv.AppendInt(append(b, ','), int64(idx), 10)
	}
	for _, sp := range g.Spans {
		b = strconv.AppendInt(append(b, ' '), int64(sp.Lo), 10)
		b = strconv.AppendInt(append(b, '-'), int64(sp.Hi), 10)
	}
	return string(b)
}

// finding gathers the episodes of one rule: one hint.
type finding struct {
	hint  timeline.Hint
	hints []timeline.Hint // each episode's, provisional where not firm
	gpus  []int
}

func (fd *finding) add(h timeline.Hint, firm, ongoing bool) {
	h.Provisional = !firm
	if len(fd.hints) == 0 {
		fd.hint = h
	}
	fd.hint.Ongoing = fd.hint.Ongoing || ongoing
	if h.Start.Before(fd.hint.Start) {
		fd.hint.Start = h.Start
	}
	if h.End.After(fd.hint.End) {
		fd.hint.End = h.End
	}
	fd.hint.Confidence = max(fd.hint.Confidence, h.Confidence)
	fd.hint.Severity = max(fd.hint.Severity, h.Severity)
	fd.hints = append(fd.hints, h)
	fd.gpus = append(fd.gpus, h.GPUs...)
}

// appendTo adds the finding to hints as one hint, if it found any episode:
// its GPUs all that any episode names, its span from the first episode's
// start to the last's end, its severity the worst episode's, its evidence
// and next step those of the largest of the worst episodes (with how many
// more there are, and the GPUs they name where it names fewer),
// provisional while every episode is.
func (fd *finding) appendTo(hints []timeline.Hint, f *frame.Frame) []timeline.Hint {
	if len(fd.hints) == 0 {
		return hints
	}
	h := fd.hint
	slices.SortStableFunc(fd.hints, func(a, b timeline.Hint) int { return cmp.Compare(episodeSize(b), episodeSize(a)) })
	h.Episodes = make([]timeline.Episode, len(fd.hints))
	for i, x := range fd.hints {
		h.Episodes[i] = timeline.Episode{Start: x.Start, End: x.End, GPUs: x.GPUs, Severity: x.Severity, Evidence: x.Evidence,
			Provisional: x.Provisional}
	}
	slices.Sort(fd.gpus)
	h.GPUs = slices.Compact(fd.gpus)
	worst := fd.hints[slices.IndexFunc(fd.hints, func(x timeline.Hint) bool { return x.Severity == h.Severity })]
	h.Evidence, h.Suggestion = worst.Evidence, worst.Suggestion
	h.Provisional = !slices.ContainsFunc(fd.hints, func(x timeline.Hint) bool { return !x.Provisional })
	if n := len(h.Episodes); n > 1 {
		// The evidence is one episode's: where the episodes name more GPUs
		// than it does, say which, or "link-degraded on GPU6-7" reads
		// "GPU6 PCIe link at ..." and GPU7 goes unexplained.
		on := ""
		if !slices.Equal(worst.GPUs, h.GPUs) {
			on = " on " + f.GPUNames(h.GPUs)
		}
		h.Evidence += fmt.Sprintf("; the largest of %d episodes%s over %s (%s in all)", n, on,
			units.Duration(h.End.Sub(h.Start)), units.Duration(timeCovered(h.Episodes)))
	}
	return append(hints, h)
}

// timeCovered is how long at least one of the episodes held: episodes of
// different GPUs overlap, and their sum would say "7m in all" of a
// 4-minute recording.
func timeCovered(eps []timeline.Episode) time.Duration {
	byStart := slices.Clone(eps)
	slices.SortFunc(byStart, func(a, b timeline.Episode) int { return a.Start.Compare(b.Start) })
	var total time.Duration
	var end time.Time
	for _, ep := range byStart {
		switch {
		case !ep.Start.Before(end): // apart from those before
			total += ep.End.Sub(ep.Start)
			end = ep.End
		case ep.End.After(end):
			total += ep.End.Sub(end)
			end = ep.End
		}
	}
	return total
}

// episodeSize ranks a finding's episodes by their hints: GPU-time, so one
// GPU idle for an hour comes before eight GPUs stalled for a minute.
func episodeSize(ep timeline.Hint) time.Duration {
	return ep.End.Sub(ep.Start) * time.Duration(max(1, len(ep.GPUs)))
}

// SortHints orders hints worst first, as Engine.Hints returns them and
// the screen and the report list them: severity, confidence, duration,
// then start, id and GPUs so the order never depends on map iteration.
func SortHints(hints []timeline.Hint) {
	slices.SortStableFunc(hints, func(a, b timeline.Hint) int {
		if c := cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(b.Confidence, a.Confidence),
			cmp.Compare(b.End.Sub(b.Start), a.End.Sub(a.Start)), a.Start.Compare(b.Start), strings.Compare(a.ID, b.ID)); c != 0 {
			return c
		}
		// Last, and only where all else ties: it makes two strings.
		return strings.Compare(units.GPUs(a.GPUs), units.GPUs(b.GPUs))
	})
}
