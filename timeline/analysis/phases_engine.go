package analysis

import (
	"math"
	"slices"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
	"github.com/gputop-dev/gputop/timeline/analysis/phases"
)

// phaseState is the Engine's phase windows: each window's kind, judged
// from the samples in it as they come (see Engine.Phases for the rules),
// and the phases made of them, kept until another window is in.
type phaseState struct {
	start int64 // Unix nanoseconds of window 0, on a multiple of the window
	w     int64
	kinds []timeline.PhaseKind // the last one is the window being filled
	acc   phaseSums
	// unjudged says the last window has taken samples its kind does not
	// say yet: it is judged when asked, not at every sample.
	unjudged bool

	phasesN, phasesSamples int
	phases                 []timeline.Phase

	// plan is where the values add reads are in the Deriver's layout
	// (placeValues).
	plan []phaseStep
	// The slots are where each GPU's, core's and host's sums are in acc,
	// kept from layout to layout and window to window: the sums are found
	// by index, not looked up in maps made anew every window. gpuOf is the
	// GPU of each GPU slot. Cores and hosts are by device: each host of a
	// session of several has its own ("host@node2"), and any one of them
	// busy is the host busy, as any one core is. The job has one slot, 0.
	gpuSlots                         map[int]int
	gpuOf                            []int
	coreSlots, cpuSlots, iowaitSlots map[string]int
}

// phaseSums is what the window being filled has received, by what each
// value is (phaseStep.what) and its slot: per GPU its utilisation, SM
// activity and power (its activity, and whether it busy-waits), the job's
// CPU, each host's CPU and iowait, each core's. A slot without a value in
// the window has n == 0 (phaseState's slots), which counts as none.
type phaseSums [phaseWhats][]sumCount

func (a *phaseSums) reset() {
	for what := range a {
		clear(a[what])
	}
}

// slotOf is k's slot in slots, a new one at the end of sums where k has
// none yet.
func slotOf[K comparable, S any](slots *map[K]int, sums *[]S, k K) int {
	if i, ok := (*slots)[k]; ok {
		return i
	}
	if *slots == nil {
		*slots = map[K]int{}
	}
	i := len(*sums)
	(*slots)[k] = i
	*sums = append(*sums, *new(S))
	return i
}

// add takes a sample's display values.
func (p *phaseState) add(e *Engine, at time.Time, values []float64) {
	o := e.popts
	if p.w == 0 {
		p.w = int64(o.Window)
		p.start = at.Truncate(o.Window).UnixNano()
		p.acc[phaseJob] = make([]sumCount, 1)
	}
	i := int((at.UnixNano() - p.start) / p.w)
	if i >= len(p.kinds) {
		if len(p.kinds) > 0 {
			p.kinds[len(p.kinds)-1] = p.acc.kind(o, e.spins) // final now
			p.unjudged = false
		}
		for len(p.kinds) <= i {
			p.kinds = append(p.kinds, phases.NoData)
		}
		p.acc.reset()
	}
	for _, st := range p.plan {
		p.acc[st.what][st.slot].add(values[st.at])
	}
	p.unjudged = true // judged when asked (Phases) or when the window ends
}

// phaseStep is where a value the windows read sits in the Deriver's
// layout, and what it is.
type phaseStep struct {
	at   int
	what uint8
	slot int // the GPU's, core's or host's in phaseSums; 0 for phaseJob
}

const (
	phaseUtil = iota // a GPU's, as are phaseSM and phasePower
	phaseSM
	phasePower
	phaseJob
	phaseCPU
	phaseIOWait
	phaseCore
	phaseWhats
)

// phaseGPUOf is what each GPU metric the windows read is.
var phaseGPUOf = map[string]uint8{timeline.GPUSMActive: phaseSM, timeline.GPUUtil: phaseUtil, timeline.GPUPower: phasePower}

// placeValues finds the values the windows read among values of keys, a
// new layout of the Deriver's (Engine.makePlans): once per layout, not by
// parsing every value's device at every sample.
func (p *phaseState) placeValues(keys []timeline.Key) {
	p.plan = p.plan[:0:0]
	for i, k := range keys {
		if idx, ok := timeline.ParseGPUDevice(k.Device); ok {
			if what, ok := phaseGPUOf[k.Name]; ok {
				p.plan = append(p.plan, phaseStep{at: i, what: what, slot: p.gpuSlot(idx)})
			}
			continue
		}
		device, _ := timeline.SplitDeviceHost(k.Device)
		switch {
		case k.Name == timeline.ProcCPU && k.Device == timeline.JobDevice:
			p.plan = append(p.plan, phaseStep{at: i, what: phaseJob})
		case k.Name == timeline.HostCPU && device == timeline.HostDevice:
			p.plan = append(p.plan, phaseStep{at: i, what: phaseCPU, slot: slotOf(&p.cpuSlots, &p.acc[phaseCPU], k.Device)})
		case k.Name == timeline.HostIOWait && device == timeline.HostDevice:
			p.plan = append(p.plan, phaseStep{at: i, what: phaseIOWait, slot: slotOf(&p.iowaitSlots, &p.acc[phaseIOWait], k.Device)})
		case k.Name == timeline.CoreBusy:
			p.plan = append(p.plan, phaseStep{at: i, what: phaseCore, slot: slotOf(&p.coreSlots, &p.acc[phaseCore], k.Device)})
		}
	}
}

// gpuSlot is GPU idx's slot in its figures' sums, a new one where it has
// none.
func (p *phaseState) gpuSlot(idx int) int {
	i := slotOf(&p.gpuSlots, &p.acc[phaseUtil], idx)
	if i == len(p.gpuOf) {
		p.gpuOf = append(p.gpuOf, idx)
		p.acc[phaseSM] = append(p.acc[phaseSM], sumCount{})
		p.acc[phasePower] = append(p.acc[phasePower], sumCount{})
	}
	return i
}

// spins says whether GPU slot k of the phase windows busy-waits at its
// mean utilisation, SM activity and power (NaN where unknown), by the
// hints' rule (frame.Spinning) and with the power reference of the GPU's
// newest column: the same GPUs the hints call spinning.
func (e *Engine) spins(k int, util, sm, power float64) bool {
	if !(util >= e.f.Opts.WaitUtil) {
		return false
	}
	ref := math.NaN()
	if g := e.gpuByIndex[e.phases.gpuOf[k]]; g != nil && e.f.N > 0 {
		ref = g.RefAt.Get(e.f.N - 1)
	}
	return frame.Spinning(sm, power, ref, e.f.Opts)
}

// kind is the window's kind so far (see Engine.Phases).
func (a *phaseSums) kind(o PhaseOptions, spins func(k int, util, sm, power float64) bool) timeline.PhaseKind {
	// A GPU spinning in a collective does no work, so its utilisation
	// says nothing of the job's activity; it says the job is waiting
	// (on one rank's checkpoint, say): evidence enough for stalled.
	topSM, topUtil := math.NaN(), math.NaN()
	spun := false
	for k := range a[phaseUtil] {
		u, m := a[phaseUtil][k].mean(), a[phaseSM][k].mean()
		if math.IsNaN(u) && math.IsNaN(m) {
			continue
		}
		if spins(k, u, m, a[phasePower][k].mean()) {
			spun = true
			u, m = 0, min(m, 0) // min keeps NaN: no SM figure stays none
		}
		if !math.IsNaN(m) && !(m <= topSM) {
			topSM = m
		}
		if !math.IsNaN(u) && !(u <= topUtil) {
			topUtil = u
		}
	}
	activity := topSM
	if math.IsNaN(activity) {
		activity = topUtil
	}
	// The host or the job busy (a slot without a value has a NaN mean,
	// busy at no threshold), or a GPU spinning.
	hostBusy := spun
	for _, c := range [...]struct {
		what      int
		threshold float64
	}{{phaseJob, o.JobBusyCPU}, {phaseCPU, o.HostBusyCPU}, {phaseIOWait, o.IOWaitBusy},
		// A core's mean over the window, not its peak: pegged for the
		// whole window, not a one-second spike.
		{phaseCore, o.CoreBusyCPU}} {
		hostBusy = hostBusy || slices.ContainsFunc(a[c.what], func(s sumCount) bool { return s.mean() >= c.threshold })
	}
	switch {
	case math.IsNaN(activity):
		return phases.NoData
	case activity >= o.BusyUtil:
		return timeline.PhaseBusy
	case hostBusy:
		return timeline.PhaseStalled
	case activity >= o.IdleUtil:
		return timeline.PhaseBusy
	}
	return timeline.PhaseIdle
}

// Phases returns the busy, stalled and idle phases of everything added,
// from the first sample to the last (where the session ends: see
// inSession), cut to [from, to]: phases that tile it
// without gaps or overlaps, in time order, adjacent phases of different
// kinds. They are computed once over the whole timeline, whatever is asked
// for, so a phase never changes with the view that shows it: zooming or
// scrolling only draws them differently.
//
// Each window (PhaseOptions.Window, on the clock's multiples of it) gets a
// kind from the highest GPU activity in it (SM activity where any GPU
// reports it, else utilisation; a lost GPU has no data and drops out) and
// from whether the host or job is busy:
//
//	activity >= BusyUtil                        busy
//	activity <  BusyUtil, host or job busy      stalled
//	IdleUtil <= activity < BusyUtil, otherwise  busy (working, if lightly)
//	activity <  IdleUtil, otherwise             idle
//
// "Otherwise" includes having no host data at all (an imported nvidia-smi
// log): stalled needs evidence that something else was working. A GPU
// spinning in a collective (utilisation high at idle SM activity or
// power: frame.Spinning, as the hints judge it) counts no activity and is
// such evidence: the job waits on a rank (llama8b's rank-0 checkpoints),
// and the hints call it a stall. The
// highest activity, not the mean: a phase says what the job is doing, and a
// job working on one GPU of eight is working (that it uses one is the
// gpu-imbalance hint's news), while in a stall every GPU's SM activity
// drops, the spinning ones' too.
//
// A window without GPU data (the sampler stalled, a hole in a recording)
// continues the phase before it, or the one after it at the very start: a
// gap is not idleness. Runs of windows shorter than MinPhase are then
// absorbed, shortest first: into the surrounding phase when both sides are
// of one kind, else into the longer neighbour.
func (e *Engine) Phases(from, to time.Time) []timeline.Phase {
	p := &e.phases
	if e.samples == 0 {
		return nil
	}
	if p.unjudged {
		p.kinds[len(p.kinds)-1] = p.acc.kind(e.popts, e.spins)
		p.unjudged = false
	}
	if len(p.kinds) != p.phasesN || e.samples != p.phasesSamples {
		p.phases = p.compute(e.first.UnixNano(), e.last.UnixNano(), int64(e.popts.MinPhase))
		p.phasesN, p.phasesSamples = len(p.kinds), e.samples
	}
	var out []timeline.Phase
	for _, ph := range p.phases {
		if !ph.End.After(from) || !ph.Start.Before(to) {
			continue
		}
		if ph.Start.Before(from) {
			ph.Start = from
		}
		if ph.End.After(to) {
			ph.End = to
		}
		out = append(out, ph)
	}
	return out
}

// compute makes phases of the windows' kinds between first and last.
func (p *phaseState) compute(first, last int64, minPhase int64) []timeline.Phase {
	kinds := append([]timeline.PhaseKind(nil), p.kinds...)
	if !phases.FillGaps(kinds) || last <= first {
		return nil
	}
	var runs []phases.Run
	for i, k := range kinds {
		start := max(p.start+int64(i)*p.w, first)
		end := min(p.start+int64(i+1)*p.w, last)
		if end <= start {
			continue
		}
		if len(runs) > 0 && runs[len(runs)-1].Kind == k {
			runs[len(runs)-1].End = end
			continue
		}
		runs = append(runs, phases.Run{Start: start, End: end, Kind: k})
	}
	runs = phases.Absorb(runs, minPhase)
	out := make([]timeline.Phase, len(runs))
	for i, r := range runs {
		out[i] = timeline.Phase{Start: time.Unix(0, r.Start), End: time.Unix(0, r.End), Kind: r.Kind}
	}
	return out
}
