package report

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/analysis/phases"
	"github.com/gputop-dev/gputop/timeline/units"
)

// repBuilder fills a Report from a store a few series at a time, reusing
// their buffers, so that a day of samples never sits in memory at once.
type repBuilder struct {
	s        *timeline.Store
	info     timeline.SourceInfo
	opts     ReportOptions
	r        *Report
	from, to time.Time
	step     int64            // sampling interval, ns
	phases   []timeline.Phase // parallel to r.Phases
	// bufs are reused by every load: a day of samples is a few MB a series;
	// sorted is where stats sorts one.
	bufs   [3]repSeries
	sorted []repWeighted
	// grid is the times of every series with their weights (repGrid),
	// for means over the whole report (whole); read only, by every worker.
	grid repSeries
	// phaseEnergy is each GPU's energy in each phase (by NVML index, then
	// parallel to phases), as gpu worked it out beside its other figures.
	phaseEnergy map[int][]float64
	// pending brings the hints where they are worked out beside the
	// figures (NewReportOf), until takeHints takes them; hintsTaken says
	// r.Hints are listed.
	pending    <-chan []timeline.Hint
	hintsTaken bool
}

func (b *repBuilder) build(a Analysis) {
	if b.s.Len() == 0 {
		b.takeHints(a)
		b.r.Host = ReportHost{CPU: repNaNStats, IOWait: repNaNStats, JobCPU: repNaNStats, RAMUsedMax: Number(math.NaN()),
			RAMTotal: Number(math.NaN()), SwapUsedMax: Number(math.NaN()), JobRSSMax: Number(math.NaN())}
		b.r.Notes = append(b.r.Notes, "no samples")
		b.work()
		return
	}
	for _, m := range b.s.Markers() {
		b.r.Markers = append(b.r.Markers, ReportMarker{At: b.rel(m.At), Text: m.Text, Origin: m.Origin})
	}
	b.processes()
	b.listPhases(a.Phases)
	b.grid = repGrid(b.s, b.from, b.to, b.step)
	// The host's figures and the timeline's series are read beside the
	// GPUs', by a builder with buffers of its own: after them, they kept
	// one core busy and the other idle (30 ms of a day's report).
	side := b.worker()
	var drawn map[int]TimelineGPU
	var beside sync.WaitGroup
	beside.Go(func() {
		side.host()
		if b.opts.TimelineColumns > 0 {
			drawn = side.drawn(b.opts.TimelineColumns)
		}
	})
	b.gpus()
	beside.Wait()
	// Of the figures, only the hosts' read the hints (their worst): the
	// hints are taken there, or at the end.
	b.hosts(a)
	b.summarisePhases()
	b.gapsAndNotes()
	b.idleNote()
	if b.opts.TimelineColumns > 0 {
		b.timeline(b.opts.TimelineColumns, drawn)
	}
	b.takeHints(a)
	b.work()
	b.owners(a.Owners)
}

// takeHints lists the hints of a, or those pending, in r.Hints, once.
func (b *repBuilder) takeHints(a Analysis) {
	if b.hintsTaken {
		return
	}
	b.hintsTaken = true
	if b.pending != nil {
		a.Hints = <-b.pending
	}
	// An Analysis may come from elsewhere than Engine.Hints (a test, a
	// recording's hints): list them in the Engine's order all the same.
	hints := slices.Clone(a.Hints)
	analysis.SortHints(hints)
	for _, h := range hints {
		rh := ReportHint{ID: h.ID, Severity: h.Severity.String(), GPUs: append([]int{}, h.GPUs...),
			Start: b.rel(h.Start), End: b.rel(h.End), Evidence: h.Evidence, Suggestion: h.Suggestion,
			Confidence: Number(h.Confidence), Provisional: h.Provisional, Ongoing: h.Ongoing, Episodes: []ReportEpisode{}}
		for _, ep := range h.Episodes {
			rh.Episodes = append(rh.Episodes, ReportEpisode{Start: b.rel(ep.Start), End: b.rel(ep.End),
				GPUs: append([]int{}, ep.GPUs...), Severity: ep.Severity.String(), Evidence: ep.Evidence,
				Provisional: ep.Provisional})
		}
		b.r.Hints = append(b.r.Hints, rh)
	}
}

// rel is t in seconds since the report's start; NaN without samples.
func (b *repBuilder) rel(t time.Time) Number {
	if b.s.Len() == 0 {
		return Number(math.NaN())
	}
	return Number(t.Sub(b.from).Seconds())
}

// whole is the time-weighted mean and the integral of a series over the
// report, read on b.grid (repWhole), or loaded where the series has other
// times.
func (b *repBuilder) whole(name, dev string) (mean, integral float64) {
	key := timeline.Key{Name: name, Device: dev}
	if mean, integral, ok := repWhole(b.s, key, b.from, b.to, b.grid); ok {
		return mean, integral
	}
	r := b.load(0, name, dev)
	return r.mean(0, len(r.v)), r.integral()
}

// load reads a series into buffer slot, which it overwrites.
func (b *repBuilder) load(slot int, name, dev string) repSeries {
	// Room for every time of the grid (what a series of the store has)
	// at once, not by doubling: the buffers are kept for the report.
	if r := &b.bufs[slot]; cap(r.at) < len(b.grid.at) {
		n := len(b.grid.at)
		r.at, r.v, r.w = make([]int64, 0, n), make([]float64, 0, n), make([]int64, 0, n)
	}
	b.bufs[slot] = repLoad(b.bufs[slot], b.s, timeline.Key{Name: name, Device: dev}, b.from, b.to, b.step)
	return b.bufs[slot]
}

// listPhases lays out the automatic phases and the marked ones, by start
// (automatic first on a tie), with their times; figures come later.
func (b *repBuilder) listPhases(auto []timeline.Phase) {
	b.phases = append(slices.Clone(auto), phases.FromMarkers(b.s.Markers(), b.from, b.to)...)
	sort.SliceStable(b.phases, func(i, j int) bool { return b.phases[i].Start.Before(b.phases[j].Start) })
	for _, p := range b.phases {
		b.r.Phases = append(b.r.Phases, ReportPhase{Start: b.rel(p.Start), End: b.rel(p.End), Kind: p.Kind.String(),
			Label: p.Label, Duration: Number(p.End.Sub(p.Start).Seconds()), GPUs: []ReportPhaseGPU{}})
	}
}

// phaseMean is the series' mean over phase k.
func (b *repBuilder) phaseMean(r repSeries, k int) Number {
	p := b.phases[k]
	start, end := p.Start.UnixNano(), p.End.UnixNano()
	rawFrom := b.s.OldestRaw().UnixNano()
	if start >= rawFrom {
		lo, hi := r.span(start, end, p.Start.Equal(b.from))
		return Number(r.mean(lo, hi))
	}
	// Before the raw samples a value is a bucket's mean standing for the
	// bucket after its start, not the interval up to it: weigh each by how
	// much of it lies in the phase. Read as raw values, a 45s stall took
	// the busy bucket after it and lost its own first one, and the day
	// report's stalled phases read SM 62% before the tier's edge and 25%
	// after it.
	var total, sum float64
	for i, at := range r.at {
		if r.w[i] <= 0 {
			continue
		}
		from, to := at, at+r.w[i] // a bucket's span
		if at >= rawFrom {
			from, to = at-r.w[i], at // a raw value's: the interval up to it
		}
		if w := float64(min(to, end) - max(from, start)); w > 0 {
			total += w
			sum += r.v[i] * w
		}
		if from >= end {
			break
		}
	}
	if total == 0 {
		return Number(math.NaN())
	}
	return Number(sum / total)
}

// gpus lists every GPU's figures, and each phase's figures of them, in
// the order of their indexes. A GPU's figures read the store's series of
// its own (most of a report's work: 0.4 s of a day of 8 GPUs), so a few
// workers, each with buffers of its own, read GPUs side by side; the
// figures are the same whoever works them out.
func (b *repBuilder) gpus() {
	idxs := timeline.GPUIndexes(b.s, b.info)
	type figures struct {
		g      ReportGPU
		phases []ReportPhaseGPU
		energy []float64
	}
	out := make([]figures, len(idxs))
	var next atomic.Int64
	work := func(w *repBuilder) {
		for i := int(next.Add(1) - 1); i < len(idxs); i = int(next.Add(1) - 1) {
			out[i].g, out[i].phases, out[i].energy = w.gpu(idxs[i])
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), maxGPUWorkers, len(idxs)) - 1 {
		w := b.worker()
		wg.Go(func() { work(&w) })
	}
	work(b)
	wg.Wait()
	b.phaseEnergy = map[int][]float64{}
	for _, f := range out {
		for k, p := range f.phases {
			b.r.Phases[k].GPUs = append(b.r.Phases[k].GPUs, p)
		}
		b.r.GPUs = append(b.r.GPUs, f.g)
		b.phaseEnergy[f.g.Index] = f.energy
	}
}

// worker is a builder that reads what b reads, with buffers of its own:
// one goroutine's.
func (b *repBuilder) worker() repBuilder {
	w := *b
	w.bufs, w.sorted = [len(b.bufs)]repSeries{}, nil
	return w
}

// maxGPUWorkers bounds the workers of gpus: each holds three series of
// the whole report, 2 MB each for a day at 1 s.
const maxGPUWorkers = 4

// gpu works out the figures of GPU idx, and its figures and energy in each
// phase (parallel to b.phases). It reads b and the store, and writes only
// its own buffers (b.bufs, b.sorted).
func (b *repBuilder) gpu(idx int) (ReportGPU, []ReportPhaseGPU, []float64) {
	dev := timeline.GPUDevice(idx)
	g := ReportGPU{Index: idx, MemTotal: Number(math.NaN()), PowerLimit: Number(math.NaN()), LostAt: Number(math.NaN())}
	for _, gi := range b.info.GPUs {
		if gi.Index == idx {
			g.Name, g.UUID, g.MemTotal, g.PowerLimit = gi.Name, gi.UUID, Number(gi.MemTotal), Number(gi.PowerLimit)
			if gi.Host != "" {
				at := gi.HostIndex
				g.Host, g.HostIndex = gi.Host, &at
			}
			g.MIGProfile, g.MIGParent = MIGOfGPU(gi)
		}
	}
	util := b.load(0, timeline.GPUUtil, dev)
	sm := b.load(1, timeline.GPUSMActive, dev)
	g.Util, g.SMActive = b.stats(util), b.stats(sm)
	g.IdleFraction = Number(util.shareBelow(b.opts.IdleUtil))
	phases := make([]ReportPhaseGPU, len(b.phases))
	for k := range b.phases {
		phases[k] = ReportPhaseGPU{Index: idx, UtilMean: b.phaseMean(util, k), SMActiveMean: b.phaseMean(sm, k)}
	}
	g.MemUsedMax = b.max(timeline.GPUMemUsed, dev)
	power := b.load(2, timeline.GPUPower, dev)
	g.PowerMean, g.Energy = Number(power.mean(0, len(power.v))), Number(power.integral())
	energy := make([]float64, len(b.phases))
	for k, p := range b.phases {
		lo, hi := power.span(p.Start.UnixNano(), p.End.UnixNano(), p.Start.Equal(b.from))
		energy[k] = power.integralOf(lo, hi)
	}
	// The series know better than the header where they have values: a
	// limit changed mid-run, a total the import could not tell.
	if v := b.max(timeline.GPUMemTotal, dev); !v.Unknown() {
		g.MemTotal = v
	}
	if v := b.max(timeline.GPUPowerLimit, dev); !v.Unknown() {
		g.PowerLimit = v
	}
	g.Lost, g.LostAt = b.lostAt(dev)
	g.Health = b.health(dev)
	return g, phases, energy
}

// lostAt finds when a device was lost: Store.Lost is false before and true
// from then on, so a binary search over time finds the first lost instant.
func (b *repBuilder) lostAt(dev string) (bool, Number) {
	if !b.s.Lost(dev, b.to) {
		return false, Number(math.NaN())
	}
	from := b.from.UnixNano()
	ns := sort.Search(int(b.to.UnixNano()-from), func(i int) bool { return b.s.Lost(dev, time.Unix(0, from+int64(i))) })
	return true, b.rel(time.Unix(0, from+int64(ns)))
}

func (b *repBuilder) host() {
	h := &b.r.Host
	cpu := b.load(0, timeline.HostCPU, timeline.HostDevice)
	h.CPU = b.stats(cpu)
	h.IOWait = b.stats(b.load(1, timeline.HostIOWait, timeline.HostDevice))
	h.RAMUsedMax = b.max(timeline.HostMemUsed, timeline.HostDevice)
	h.RAMTotal = b.max(timeline.HostMemTotal, timeline.HostDevice)
	h.SwapUsedMax = b.max(timeline.HostSwapUsed, timeline.HostDevice)
	for _, k := range b.s.Keys() {
		// The session's own host's cores: in a session of several each
		// host's are its own ("cpu3@node2"), not 128 cores of one host.
		if _, host := timeline.SplitDeviceHost(k.Device); k.Name == timeline.CoreBusy && host == "" {
			h.Cores++
		}
	}
	job := b.load(2, timeline.ProcCPU, timeline.JobDevice)
	h.JobCPU = b.stats(job)
	h.JobRSSMax = b.max(timeline.ProcRSS, timeline.JobDevice)
	for k := range b.phases {
		b.r.Phases[k].HostCPUMean = b.phaseMean(cpu, k)
		b.r.Phases[k].JobCPUMean = b.phaseMean(job, k)
	}
}

// summarisePhases gives each phase its means over GPUs and its worst GPU
// (the lowest utilisation, where two or more have one), as a host's GPUs
// are summed (timeline.SumHost).
func (b *repBuilder) summarisePhases() {
	var figs []timeline.GPUFigures
	for k := range b.r.Phases {
		p := &b.r.Phases[k]
		figs = figs[:0]
		for _, g := range p.GPUs {
			figs = append(figs, timeline.GPUFigures{Index: g.Index, Util: float64(g.UtilMean), SMActive: float64(g.SMActiveMean)})
		}
		sum := timeline.SumHost(figs)
		p.UtilMean, p.SMActiveMean, p.WorstUtilMean = Number(sum.UtilMean), Number(sum.SMActiveMean), Number(math.NaN())
		if sum.Known >= 2 {
			idx := sum.LowestGPU
			p.WorstGPU, p.WorstUtilMean = &idx, Number(sum.UtilLowest)
		}
	}
}

// gapsAndNotes lists the pauses in sampling, and says where the store had
// only averages left.
func (b *repBuilder) gapsAndNotes() {
	keys := b.s.Keys()
	if len(keys) > 0 {
		// Every series has a value (maybe NaN) at every sample time, so any
		// one of them shows when samples were taken.
		times := b.load(0, keys[0].Name, keys[0].Device)
		for _, g := range repGaps(times, b.s.OldestRaw().UnixNano(), b.step) {
			b.r.Gaps = append(b.r.Gaps, ReportGap{Start: b.rel(time.Unix(0, g[0])), End: b.rel(time.Unix(0, g[1]))})
		}
	}
	for _, o := range b.s.OutOfRange() {
		b.r.Notes = append(b.r.Notes, o.String())
	}
	if j := b.s.Jump(); j.Dropped > 0 {
		b.r.Notes = append(b.r.Notes, j.String())
	}
	switch {
	case !b.hasHostData() && slices.ContainsFunc(b.phases, func(p timeline.Phase) bool { return p.Kind == timeline.PhaseStalled }):
		// GPUs spinning in a collective are the job at work: the one
		// stall there is evidence of without the host.
		b.r.Notes = append(b.r.Notes, "no host or job data: stalled only where GPUs spin in a collective "+
			"(high utilisation at idle power or SM activity) while the job waits; elsewhere the phases are "+
			"busy or idle, since stalled needs evidence that the host or the job was working")
	case !b.hasHostData():
		b.r.Notes = append(b.r.Notes, "no host or job data: the phases are busy or idle only, "+
			"since stalled needs evidence that the host or the job was working")
	}
	if raw := b.s.OldestRaw(); raw.After(b.from) {
		// The width of the buckets read (the store reads the coarsest tier
		// where the finest no longer reaches back to the start: 1m over
		// a day), not the finest tier's: a 50s stall is not seen in it.
		width := time.Duration(repBucketWidth(b.grid.at, raw.UnixNano()))
		b.r.Notes = append(b.r.Notes, "before "+units.Clock(raw.Sub(b.from))+" only averages over "+units.Duration(width)+
			" were kept, so percentiles, peaks and idle fractions there are of those averages, "+
			"and a phase's figures there blend the buckets across its edges")
	}
}

// idleGap is how far (a share of the report) the least idle GPU's IDLE
// may exceed the idle phases' share before the page says why: a few
// points are the phases' windows rounding, not two stories.
const idleGap = 0.10

// idleNote says why the GPU table's IDLE and the PHASES' idle differ,
// where they differ by idleGap or more. They measure different things:
// IDLE counts each sample a GPU is under IdleUtil, while a phase is idle
// only where the busiest GPU is, judged over windows, and stretches
// shorter than MinPhase fold into the work around them. The ollama log's
// single GPU read "IDLE 25%" beside "idle 0s (0%)": its 1-5s pauses
// between prompts fold into the bursts around them.
func (b *repBuilder) idleNote() {
	d := float64(b.r.Duration)
	if !(d > 0) || len(b.phases) == 0 {
		return
	}
	least, gpu := math.Inf(1), -1
	for _, g := range b.r.GPUs {
		if f := float64(g.IdleFraction); !math.IsNaN(f) && f < least {
			least, gpu = f, g.Index
		}
	}
	var idle time.Duration
	for _, p := range b.phases {
		if p.Kind == timeline.PhaseIdle {
			idle += p.End.Sub(p.Start)
		}
	}
	share := idle.Seconds() / d
	if gpu < 0 || least-share < idleGap {
		return
	}
	o := analysis.DefaultPhaseOptions()
	name := "GPU" + strconv.Itoa(gpu)
	if len(b.r.GPUs) > 1 {
		name = "the least idle, GPU" + strconv.Itoa(gpu)
	}
	b.r.Notes = append(b.r.Notes, fmt.Sprintf("IDLE counts every sample under %s%% (%s on %s); the phases judge %s "+
		"windows by their busiest GPU and fold stretches under %s into the work around them, so their idle is %s (%s)",
		units.Number(b.opts.IdleUtil), units.Share(least), name, units.Duration(o.Window), units.Duration(o.MinPhase),
		units.Duration(idle.Round(time.Second)), units.Share(share)))
}

// hasHostData says whether the store has any series Segment reads to tell
// stalled from idle.
func (b *repBuilder) hasHostData() bool {
	for _, k := range b.s.Keys() {
		// Any host's: the phases read every host's CPU ("host@node2").
		device, _ := timeline.SplitDeviceHost(k.Device)
		switch {
		case k == timeline.Key{Name: timeline.ProcCPU, Device: timeline.JobDevice}:
			return true
		case (k.Name == timeline.HostCPU || k.Name == timeline.HostIOWait) && device == timeline.HostDevice:
			return true
		case k.Name == timeline.CoreBusy:
			return true
		}
	}
	return false
}
