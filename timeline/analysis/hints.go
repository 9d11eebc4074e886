package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// HintOptions holds the thresholds of the hint rules. Each rule's doc
// comment (hints_*.go) says which it uses and why; docs/report.md lists
// them. A zero field takes its default, so HintOptions{Window: time.Minute}
// changes the window alone.
type HintOptions struct {
	// Window is the shortest stretch a rule judges: 30 s by default, and
	// never less (a shorter one is raised to 30 s), so a two-second dip is
	// never a hint. Rules about a sustained state (input-bound,
	// low-utilization, ...) judge windows of SustainedWindows × Window,
	// gpu-idle IdleWindows × Window. Windows step by half their length and
	// start on the clock's multiples of the step, so hints recomputed live
	// every few seconds keep their edges.
	Window time.Duration
	// SustainedWindows: windows of rules about a sustained state are this
	// many Windows long (default 4: 2 min, longer than a validation phase,
	// which seed 001 shows is normal).
	SustainedWindows int
	// IdleWindows: gpu-idle judges windows this many Windows long
	// (default 10: 5 min, "a long stretch").
	IdleWindows int
	// MergeGap: stretches of one rule on the same GPUs less than this apart
	// are one hint ("in 4 stretches"), not one each. Default 2 min.
	MergeGap time.Duration

	// IdleUtil (%): without SM activity, a GPU whose utilisation is below
	// this is idle. Default 10: NVML's utilisation is coarse, and a stray
	// copy or tiny kernel reads 1-8 %.
	IdleUtil float64
	// IdleSM (%): where SM activity is known it decides instead: below this
	// the GPU is idle, unless its utilisation is at LaunchUtil or more
	// (short of busy-waiting). Default 5.
	IdleSM float64
	// LaunchUtil (%): a GPU with a kernel running this much of the time is
	// working, however few SMs it keeps busy: tiny kernels, launch-bound
	// (utilisation near 50 % at 1 % SM activity is a GPU barely used, not
	// an idle one). Default 25.
	LaunchUtil float64
	// BusyWork (%): a GPU whose work (SM activity where known, else
	// utilisation) is at or above this is busy. Default 50.
	BusyWork float64
	// LowWork (%): over a sustained window, mean work below this is
	// under-used. Default 50; 60 keeps a hint going (hysteresis).
	LowWork float64

	// WaitUtil (%), WaitSM (%), WaitPower (share): a GPU busy-waits when
	// its utilisation is at or above WaitUtil while its SM activity is
	// below WaitSM or, without SM activity, its power is at most WaitPower
	// of its power limit (or, without a limit, of the busiest draw seen on
	// this node). Defaults 80, 10, 0.35: an NCCL kernel spinning in a
	// collective reads 99 % at about a fifth of the limit; memory-bound
	// work at 96 % still draws 60 % or more (vlm_llava's decode).
	WaitUtil, WaitSM, WaitPower float64

	// HeldMemory (bytes): a GPU holding at least this much is holding
	// memory for a job, not just a CUDA context. Default 1 GiB.
	HeldMemory float64

	// HostBusyCPU (%): the host counts as busy feeding the GPUs when its
	// CPU is at least this, or at least two cores are at BusyCore or more,
	// or the wrapped job uses at least JobBusyCPU. Default 50.
	HostBusyCPU float64
	// BusyCore (%): a core at or above this is busy; PeggedCore (%) is
	// pegged. Defaults 80 and 90.
	BusyCore, PeggedCore float64
	// IdleCore (%): a core at or below this is idle. Default 20.
	IdleCore float64
	// JobBusyCPU (% of one core): see HostBusyCPU. Default 200: more than
	// one busy thread.
	JobBusyCPU float64
	// IOWait (%): host iowait at or above this, or at or above two cores'
	// worth where the core count is known, is high. Default 10.
	IOWait float64

	// CapShare: power at or above this share of the limit while busy is at
	// the cap. Default 0.97.
	CapShare float64
	// ThermalTemp (°C): without clock-event reasons, a busy GPU at or
	// above this is taken as thermally throttled. Default 88.
	ThermalTemp float64
	// PCIeBusy (bytes/s): host-device traffic at or above this is near the
	// link's limit. Default 10e9 (a PCIe 3.0 x16 link moves ~12.5 GB/s).
	PCIeBusy float64
	// MemFull (share of the total): GPU memory or host RAM used at or above
	// this is near full. Default 0.95.
	MemFull float64
	// MemHeadroom (share of the total): an under-used GPU using at most this
	// has room for a bigger batch. Default 0.4.
	MemHeadroom float64

	// StallMin: a stall is at least this long. Default 3 s.
	StallMin time.Duration
	// StallPeriod: stalls recurring faster than this are a per-step pattern
	// (input-bound, low-utilization), not a periodic stall. Default 10 s.
	StallPeriod time.Duration
	// StallShare: periodic stalls must cost at least this share of the time.
	// Default 0.10: a 2 s dip every minute (3 %) is not a hint.
	StallShare float64
	// StallJitter: the spacing of stalls (or of the work between them) must
	// vary by at most this coefficient of variation: a steady period, the
	// gaps' spread within 30 % of their mean. Default 0.3.
	StallJitter float64
	// StallLengthJitter: the stalls' own lengths may vary by at most this
	// coefficient of variation. Default 0.5.
	StallLengthJitter float64

	// FrozenMin: a GPU whose every figure repeats to the last digit for
	// this long (and 8 columns), after varying, has frozen telemetry.
	// Default 2 min: live readings jitter, and in the real logs no GPU
	// with power readings repeats them for more than 4 s.
	FrozenMin time.Duration
}

// minHintWindow is the shortest window any rule may judge.
const minHintWindow = 30 * time.Second

// DefaultHintOptions returns the documented defaults.
func DefaultHintOptions() HintOptions {
	return HintOptions{
		Window:            minHintWindow,
		SustainedWindows:  4,
		IdleWindows:       10,
		MergeGap:          2 * time.Minute,
		IdleUtil:          10,
		IdleSM:            5,
		LaunchUtil:        25,
		BusyWork:          50,
		LowWork:           50,
		WaitUtil:          80,
		WaitSM:            10,
		WaitPower:         0.35,
		HeldMemory:        1 << 30,
		HostBusyCPU:       50,
		BusyCore:          80,
		PeggedCore:        90,
		IdleCore:          20,
		JobBusyCPU:        200,
		IOWait:            10,
		CapShare:          0.97,
		ThermalTemp:       88,
		PCIeBusy:          10e9,
		MemFull:           0.95,
		MemHeadroom:       0.4,
		StallMin:          3 * time.Second,
		StallPeriod:       10 * time.Second,
		StallShare:        0.10,
		StallJitter:       0.3,
		StallLengthJitter: 0.5,
		FrozenMin:         2 * time.Minute,
	}
}

// withDefaults fills every zero field from DefaultHintOptions and raises a
// window below 30 s to 30 s.
func (o HintOptions) withDefaults() HintOptions {
	d := DefaultHintOptions()
	o.Window = max(o.Window, d.Window)
	fillDur := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	fillInt := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	fill := func(v *float64, def float64) {
		if !(*v > 0) {
			*v = def
		}
	}
	fillInt(&o.SustainedWindows, d.SustainedWindows)
	fillInt(&o.IdleWindows, d.IdleWindows)
	fillDur(&o.MergeGap, d.MergeGap)
	fillDur(&o.StallMin, d.StallMin)
	fillDur(&o.StallPeriod, d.StallPeriod)
	fillDur(&o.FrozenMin, d.FrozenMin)
	for _, f := range []struct {
		v   *float64
		def float64
	}{
		{&o.IdleUtil, d.IdleUtil}, {&o.IdleSM, d.IdleSM}, {&o.LaunchUtil, d.LaunchUtil}, {&o.BusyWork, d.BusyWork},
		{&o.LowWork, d.LowWork},
		{&o.WaitUtil, d.WaitUtil}, {&o.WaitSM, d.WaitSM}, {&o.WaitPower, d.WaitPower},
		{&o.HeldMemory, d.HeldMemory}, {&o.HostBusyCPU, d.HostBusyCPU}, {&o.BusyCore, d.BusyCore},
		{&o.PeggedCore, d.PeggedCore}, {&o.IdleCore, d.IdleCore}, {&o.JobBusyCPU, d.JobBusyCPU},
		{&o.IOWait, d.IOWait}, {&o.CapShare, d.CapShare}, {&o.ThermalTemp, d.ThermalTemp},
		{&o.PCIeBusy, d.PCIeBusy}, {&o.MemFull, d.MemFull}, {&o.MemHeadroom, d.MemHeadroom},
		{&o.StallShare, d.StallShare}, {&o.StallJitter, d.StallJitter}, {&o.StallLengthJitter, d.StallLengthJitter},
	} {
		fill(f.v, f.def)
	}
	return o
}

// hintRule is one rule: find looks for it over the frame and returns one
// candidate per GPU (or the host) with the stretches where it holds;
// describe turns a group of candidates that hold together into the hint's
// severity, evidence, suggestion and confidence (false drops the group).
// A candidate yields to the rules in yieldsTo: it is dropped where one of
// them holds on the same GPU for most of its time, because that rule names
// the cause (input-bound explains a low utilisation; gpu-imbalance explains
// seven idle GPUs).
type hintRule struct {
	id       string
	find     func(f *hintFrame) []hintCand
	describe func(f *hintFrame, g *hintGroup) (timeline.Hint, bool)
	yieldsTo []string
}

// hintRules lists every rule, the one place a rule is added; evaluate runs
// them in this order (Engine.Hints).
var hintRules = []hintRule{
	imbalanceRule,
	periodicStallRule,
	inputBoundRule,
	hostSingleThreadRule,
	ioWaitRule,
	busyWaitRule,
	idleMemoryHeldRule,
	lowUtilizationRule,
	gpuIdleRule,
	powerCappedRule,
	thermalThrottleRule,
	memoryPressureRule,
	memoryHeadroomRule,
	pcieBoundRule,
	frozenTelemetryRule,
	// From the job's own progress (hints_progress.go).
	throughputDropRule,
	progressStalledRule,
	warmUpRule,
	// Across the hosts of a session of several (hints_hosts.go), after
	// the rules of one GPU or one host.
	hostIdleRule,
	hostLateRule,
	stragglerHostRule,
	unevenMemoryRule,
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
	if f.n == c.hintsN && (e.samples == c.hintsSamples || !c.hintsOpen) {
		return c.hints
	}
	hints := e.health.hints(f, f.evaluate())
	c.hintsN, c.hintsSamples, c.hintsOpen, c.hints = f.n, e.samples, f.n == e.f.n, hints
	return hints
}

// evaluate runs every rule over the view.
func (f *hintFrame) evaluate() []timeline.Hint {
	if len(f.gpus) == 0 || time.Duration(f.n)*f.step < ProvisionalMin {
		return nil
	}
	var cands []hintCand
	for _, r := range hintRules {
		cands = append(cands, r.find(f)...)
	}
	cands = crossHostSuppress(hintSuppress(cands))
	var hints []timeline.Hint
	for _, r := range hintRules {
		var fd finding
		for _, g := range hintGroups(r.id, cands) {
			if h, ok := f.describe(r, g); ok {
				grace := g.grace
				if grace == 0 {
					grace = int(2 * f.opts.Window / f.step)
				}
				fd.add(h, g.firm, g.hull.hi+grace >= f.n)
			}
		}
		if len(fd.episodes) > 0 {
			hints = append(hints, fd.done())
		}
	}
	SortHints(hints)
	return hints
}

// describe is a rule's hint for one episode, kept once described: its
// columns are closed when it ends before the view's last one, and a
// description reads nothing else.
func (f *hintFrame) describe(r hintRule, g *hintGroup) (timeline.Hint, bool) {
	key := ""
	closed := g.hull.hi < f.closed()
	if closed && f.eng != nil {
		key = describeKey(r.id, g)
		if d, ok := f.eng.cache.described[key]; ok {
			return d.hint, d.ok
		}
	}
	h, ok := r.describe(f, g)
	if ok {
		h.ID = r.id
		h.GPUs = g.gpus
		h.Start, h.End = f.time(g.hull.lo), f.time(g.hull.hi)
		h.Confidence = math.Round(h.Confidence*f.lengthFactor(g.hull)*100) / 100
	}
	if key != "" {
		c := f.eng.cache.described
		if len(c) >= maxDescribed {
			clear(c)
		}
		c[key] = described{h, ok}
	}
	return h, ok
}

// describeKey names an episode: its rule, its candidates' key, GPUs and
// columns.
func describeKey(id string, g *hintGroup) string {
	b := []byte(id)
	b = append(b, 0)
	b = append(b, g.cands[0].key...)
	for _, idx := range g.gpus {
		b = strconv.AppendInt(append(b, ','), int64(idx), 10)
	}
	for _, sp := range g.spans {
		b = strconv.AppendInt(append(b, ' '), int64(sp.lo), 10)
		b = strconv.AppendInt(append(b, '-'), int64(sp.hi), 10)
	}
	return string(b)
}

// finding gathers the episodes of one rule: one hint.
type finding struct {
	hint     timeline.Hint
	episodes []timeline.Episode
	hints    []timeline.Hint // each episode's, for its suggestion
	gpus     []int
}

func (fd *finding) add(h timeline.Hint, firm, ongoing bool) {
	if len(fd.episodes) == 0 {
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
	fd.episodes = append(fd.episodes, timeline.Episode{Start: h.Start, End: h.End, GPUs: h.GPUs, Severity: h.Severity,
		Evidence: h.Evidence, Provisional: !firm})
	fd.hints = append(fd.hints, h)
	fd.gpus = append(fd.gpus, h.GPUs...)
}

// done is the finding as one hint: its GPUs all that any episode names,
// its span from the first episode's start to the last's end, its severity
// the worst episode's, its evidence and next step those of the largest of
// the worst episodes (with how many more there are), provisional while
// every episode is.
func (fd *finding) done() timeline.Hint {
	h := fd.hint
	order := make([]int, len(fd.episodes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(episodeSize(fd.episodes[b]), episodeSize(fd.episodes[a]))
	})
	h.Episodes = make([]timeline.Episode, len(order))
	for i, k := range order {
		h.Episodes[i] = fd.episodes[k]
	}
	slices.Sort(fd.gpus)
	h.GPUs = slices.Compact(fd.gpus)
	worst := order[slices.IndexFunc(h.Episodes, func(ep timeline.Episode) bool { return ep.Severity == h.Severity })]
	h.Evidence, h.Suggestion = fd.hints[worst].Evidence, fd.hints[worst].Suggestion
	h.Provisional = true
	for _, ep := range h.Episodes {
		h.Provisional = h.Provisional && ep.Provisional
	}
	if n := len(h.Episodes); n > 1 {
		h.Evidence += fmt.Sprintf("; the largest of %d episodes over %s (%s in all)", n,
			units.Duration(h.End.Sub(h.Start)), units.Duration(timeCovered(h.Episodes)))
	}
	return h
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

// episodeSize ranks episodes: GPU-time, so one GPU idle for an hour comes
// before eight GPUs stalled for a minute.
func episodeSize(ep timeline.Episode) time.Duration {
	return ep.End.Sub(ep.Start) * time.Duration(max(1, len(ep.GPUs)))
}

// SortHints orders hints worst first, as Engine.Hints returns them and
// the screen and the report list them: severity, confidence, duration,
// then start, id and GPUs so the order never depends on map iteration.
func SortHints(hints []timeline.Hint) {
	sort.SliceStable(hints, func(i, j int) bool {
		a, b := hints[i], hints[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		da, db := a.End.Sub(a.Start), b.End.Sub(b.Start)
		if da != db {
			return da > db
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return units.GPUs(a.GPUs) < units.GPUs(b.GPUs)
	})
}
