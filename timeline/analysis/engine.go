package analysis

import (
	"math"
	"sort"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis/frame"
)

// Engine is the one analysis of a session: the screen, the report and a
// recording's hint snapshots all ask it, so they say the same things. It
// takes samples in time order as they arrive (Add, a few microseconds each)
// and answers for any moment up to the last one:
//
//	Add(sample) ──▶ columns (one per second or interval, each GPU's state
//	                classified once, when its column is filled)
//	                ├─▶ Hints(t): what gputop report --to t says; judged
//	                │   windows, stalls and descriptions are kept between
//	                │   calls, so asking again a second later costs little
//	                └─▶ Phases(): busy, stalled and idle over everything added
//
// What it says of a moment depends only on the samples up to it: a column
// is classified with the limits and references known when it was filled,
// never revised by what came later. So the screen at a moment, live or in
// a replay, and `gputop report --to` that moment agree, and nothing shown
// moves when the view is zoomed or scrolled.
//
// An Engine is not safe for concurrent use.
type Engine struct {
	info   timeline.SourceInfo
	infoAt map[int]int // GPU index to its place in info.GPUs, built when asked
	popts  PhaseOptions

	f       frame.Frame // every column so far; f.n-1 is the one being filled
	samples int
	first   time.Time
	last    time.Time
	deriver timeline.Deriver
	held    [2]timeline.Sample // the Deriver keeps the previous sample
	jump    timeline.Jump      // samples left out, as the Store leaves them out
	// unfilled says the column being filled has taken samples its columns
	// do not show yet (settle).
	unfilled bool
	// values are the newest sample's display values, as its Deriver made
	// them (reused by the next Add), named by its Keys and IDs: what a
	// Judge hands its sinks.
	values []float64

	gpuByIndex map[int]*frame.GPU
	acc        columnSums
	plan       takePlan
	// coreSlot is each core's place among its host's sums (by device,
	// "cpu3" or "cpu3@node2"), and hostSlot each host's place in the
	// frame's Hosts (by name, "" for the session's own).
	coreSlot map[string]int
	coresOn  map[string]int // how many cores of each host have a place
	hostSlot map[string]int

	// nodes are the running references of each model of GPU in the
	// session, as known when each column was filled, and refOf each GPU's
	// (by index; made again with a new description): a GPU is judged
	// against the clocks and draw of its own model, on any host (a host
	// capped from its first second never shows the boost clock its
	// neighbours do), never another model's (an A100 among H100s is not
	// idle at 300 W).
	nodes   []nodeRefs
	refOf   map[int]int
	modelAt map[string]int

	phases phaseState
	cache  hintCache
	health healthLog // Xids, lost GPUs and PCIe links (hints_errors.go)
	// kept is what the frame's views share: the job, the frozen figures,
	// the hosts' layout, the rules' verdicts (frame.Kept).
	kept frame.Kept
	// budget bounds the columns' bytes (SetBudget), and heldFrom is the
	// first column whose pages are all still held; pageAsked is the
	// page keepWithin last looked at.
	budget, heldFrom, pageAsked int
	// holdPauses lays out every column of a long pause, as the frame
	// did before it skipped them: for the test that both say the same.
	holdPauses bool
}

// pauseCols is how long a pause in sampling may be, in columns, before
// the frame skips the rest of it (frame.PauseCols).
func (e *Engine) pauseCols() int {
	if e.holdPauses {
		return math.MaxInt
	}
	return frame.PauseCols(e.f.Opts, e.f.Step, e.f.Interval)
}

// NewEngine returns an Engine for a session described by info, with the
// default thresholds (docs/report.md).
func NewEngine(info timeline.SourceInfo) *Engine {
	e := &Engine{info: info, popts: DefaultPhaseOptions(), gpuByIndex: map[int]*frame.GPU{}, coreSlot: map[string]int{}, coresOn: map[string]int{},
		hostSlot: map[string]int{"": 0}, refOf: map[int]int{}, modelAt: map[string]int{}}
	e.f = frame.Frame{Opts: frame.DefaultOptions(), Kept: &e.kept, Hosts: []frame.Host{frame.NewHost("", 0)}}
	e.kept.Init(&e.f, info)
	e.cache.init()
	return e
}

// SetInfo takes a new description of the session (a GPU found later, a
// limit now known). Columns already filled keep what they were judged with.
func (e *Engine) SetInfo(info timeline.SourceInfo) {
	if sameDescription(e.info, info) {
		return // a reader hands its description with every sample
	}
	e.info = info
	e.infoAt = nil
	clear(e.refOf)       // a GPU's model now known
	e.kept.SetInfo(info) // the hosts' layout is checked against it when next asked
	for _, g := range e.f.GPUs {
		g.Host = e.hostOfGPU(g.Index) // a host that described itself late
	}
}

// hostOfGPU is the place in the frame's Hosts of GPU idx's host: the
// session's own (0) but in a session of several hosts.
func (e *Engine) hostOfGPU(idx int) int {
	if !e.info.MultiHost() {
		return 0
	}
	return e.hostAt(e.infoOf(idx).Host)
}

// hostAt is host name's place in the frame's Hosts, made (with columns
// unknown so far) the first time it is named.
func (e *Engine) hostAt(name string) int {
	if k, ok := e.hostSlot[name]; ok {
		return k
	}
	k := len(e.f.Hosts)
	e.hostSlot[name] = k
	e.f.Hosts = append(e.f.Hosts, frame.NewHost(name, e.f.N))
	return k
}

// sameDescription says whether b is a, handed again: the same GPU and host
// lists (the same arrays, as a reader hands them until they change) and
// the same fields a rule reads.
func sameDescription(a, b timeline.SourceInfo) bool {
	return len(a.GPUs) == len(b.GPUs) && len(a.Hosts) == len(b.Hosts) &&
		(len(a.GPUs) == 0 || &a.GPUs[0] == &b.GPUs[0]) && (len(a.Hosts) == 0 || &a.Hosts[0] == &b.Hosts[0]) &&
		a.Interval == b.Interval && a.Kind == b.Kind && a.Host == b.Host
}

// Info is the description the Engine was last given.
func (e *Engine) Info() timeline.SourceInfo { return e.info }

// Len is the number of samples added.
func (e *Engine) Len() int { return e.samples }

// First and Last are the times of the first and last samples added.
func (e *Engine) First() time.Time { return e.first }

// Last is the time of the last sample added.
func (e *Engine) Last() time.Time { return e.last }

// nodeRefs are one node's running references.
type nodeRefs struct {
	powerHist  []uint32 // the node's draw while utilisation is high, by whole watt
	powerCount int
	nodeRef    float64    // 95th percentile of powerHist
	powerQ     histCursor // where nodeRef is in powerHist
	maxClock   float64    // the node's highest SM clock
	maxPower   float64    // and draw
	changed    bool       // powerHist took a value this column
}

// nodeOf is the references of g's model: a MIG slice's is its GPU's.
func (e *Engine) nodeOf(g *frame.GPU) *nodeRefs {
	k, ok := e.refOf[g.Index]
	if !ok {
		in := e.infoOf(g.Index)
		if in.IsMIGInstance() {
			in = e.infoOf(in.MIGParent)
		}
		k = slotOf(&e.modelAt, &e.nodes, in.Name)
		e.refOf[g.Index] = k
	}
	return &e.nodes[k]
}

// columnStep is the width of the Engine's columns for a session: its
// sampling interval, and at least a second: NVML's utilisation is itself an
// average over 1/6 s to 1 s, so finer columns add noise, not detail.
// Columns fall on the clock's multiples of their width, as windows and
// phases do.
func columnStep(info timeline.SourceInfo) time.Duration {
	return max(sampleInterval(info), time.Second)
}

// SamplesUntil is where the samples end that what the Engine says of t
// rests on (Hints(t)), for a session described by info: the columns that
// are complete by t, as far as the sampling interval says. Where samples
// come a second apart or slower that is every sample up to t; where they
// come faster, the second that holds t counts once its last sample is due.
// gputop report --to t reads the samples before it, so that it says what
// the screen said with its cursor at t, live or in a replay.
func SamplesUntil(info timeline.SourceInfo, t time.Time) time.Time {
	return t.Add(sampleInterval(info)).Truncate(columnStep(info))
}

// sampleInterval is a session's sampling interval, a second where unknown,
// and at most maxInterval: a file may state any interval, and the windows
// the rules judge are walked in Steps of seconds across each column.
func sampleInterval(info timeline.SourceInfo) time.Duration {
	if info.Interval <= 0 {
		return time.Second
	}
	return min(info.Interval, maxInterval)
}

// maxInterval is the longest interval the Engine lays its columns out by:
// an hour, far beyond the 30 s windows its rules judge (a Prometheus
// import at a coarser step is judged in hour-wide columns).
const maxInterval = time.Hour

// columnSums is what the column being filled has received: a sum and a
// count per value, so several samples in one column average.
type columnSums struct {
	// gpu are the sums of each GPU (by its slot, the order the Engine
	// first saw them in), and touched the slots with any this column: an
	// index, not a map, since 512 GPUs of 30 metrics come every second.
	gpu     []gpuSums
	touched []int
	// host are each host's sums, by its place in the frame's Hosts.
	host []hostSums
}

// hostSums are one host's sums in the column being filled.
type hostSums struct {
	series [frame.HostSeries]sumCount
	cores  []sumCount
}

// hostOf is host k's sums, made where new.
func (c *columnSums) hostOf(k int) *hostSums {
	for len(c.host) <= k {
		c.host = append(c.host, hostSums{})
	}
	return &c.host[k]
}

// gpuSums are one GPU's sums in the column being filled.
type gpuSums struct {
	g    *frame.GPU
	m    [frame.Metrics]sumCount
	bits int32 // clock-event reasons, ORed: bits cannot be averaged
	// held are the reasons the violation counters say held the clocks
	// most of an interval, and heldN how many shares came: the reasons
	// where the bitmask is not recorded (a Prometheus history: serve
	// exports dcgm-exporter's violation counters, not gputop's bits).
	held         int32
	heldN        int
	limit, total float64 // the power limit and memory total sampled; 0: none came
	touched      bool
}

// at is the sums of GPU g this column; nil if none came.
func (c *columnSums) at(g *frame.GPU) *gpuSums {
	if g.Slot < len(c.gpu) && c.gpu[g.Slot].touched {
		return &c.gpu[g.Slot]
	}
	return nil
}

// of is the sums of GPU g (its slot), marked as touched this column.
func (c *columnSums) of(g *frame.GPU) *gpuSums {
	for len(c.gpu) <= g.Slot {
		c.gpu = append(c.gpu, gpuSums{})
	}
	s := &c.gpu[g.Slot]
	if !s.touched {
		*s = gpuSums{g: g, touched: true}
		c.touched = append(c.touched, g.Slot)
	}
	return s
}

type sumCount struct {
	sum float64
	n   int
}

func (s *sumCount) add(v float64) {
	if !math.IsNaN(v) {
		s.sum += v
		s.n++
	}
}

func (s sumCount) mean() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.sum / float64(s.n)
}

func (c *columnSums) reset() {
	for _, slot := range c.touched {
		c.gpu[slot].touched = false
	}
	c.touched = c.touched[:0]
	for k := range c.host {
		c.host[k].series = [frame.HostSeries]sumCount{}
		clear(c.host[k].cores)
	}
}

// Add takes the next sample. A sample not later than the last one is
// dropped, as the Store drops it, so neither shows it; so is one that
// comes more than timeline.MaxSampleGap after the last, and all after it.
func (e *Engine) Add(s *timeline.Sample) {
	if e.samples > 0 && (!s.At.After(e.last) || e.jump.FarAfter(e.last, s.At)) {
		return
	}
	cur := &e.held[e.samples%2]
	*cur = *s
	values := e.deriver.Next(cur)
	e.values = values
	f := &e.f
	if e.samples == 0 {
		f.Interval = sampleInterval(e.info)
		f.Step = columnStep(e.info)
		f.From = s.At.Truncate(f.Step)
		e.first = s.At
		e.acc.reset()
		e.grow(1)
	}
	if c := f.Col(s.At); c >= f.N {
		e.settle()
		e.closeColumn()
		if pause := e.pauseCols(); c-f.N > pause {
			// A long pause (a sparse log, a laptop asleep): its first
			// columns of no sample end every stretch as the whole pause
			// would, and the columns go on where the sample is.
			e.grow(f.N + pause)
			f.Pauses = append(f.Pauses, frame.Pause{Col: f.N, Resume: s.At.Truncate(f.Step)})
			c = f.N
		}
		e.grow(c + 1)
		e.acc.reset()
		e.keepWithin()
	}
	e.samples++
	e.kept.Samples = e.samples
	e.last = s.At
	e.kept.Job.Add(s)
	e.kept.Owners.Add(s)
	if gen := e.deriver.Layout(); gen != e.plan.gen || len(values) != e.plan.n {
		e.makePlans(e.deriver.Keys(), gen)
	}
	e.take(values)
	e.health.add(s, values, f.N-1)
	e.unfilled = true
	e.phases.add(e, s.At, values)
}

// settle writes the column being filled, if samples came since it was
// last written: once before anything reads the columns (a new column, a
// question), not after every sample, since a session sampled every few
// milliseconds puts hundreds of samples in a column.
func (e *Engine) settle() {
	if e.unfilled {
		e.unfilled = false
		e.fillColumn(e.f.N - 1)
	}
}

// take adds a sample's values to the column being filled. Where the
// Deriver kept its layout, each value's place (its GPU and figure) is the
// one found for the same position last time (takePlan): a session of
// 512 GPUs sends 36,000 values a second, and finding each one's GPU by its
// device name was most of what taking them cost.
func (e *Engine) take(values []float64) {
	for _, st := range e.plan.steps {
		v := values[st.at]
		switch {
		case st.gpu != nil:
			sums := e.acc.of(st.gpu)
			switch st.what {
			case takeThrottle:
				if !math.IsNaN(v) && v >= 0 && v == math.Trunc(v) {
					sums.bits |= int32(v)
					sums.m[frame.MetricThrottle].n++
				}
			case takeHeldPower, takeHeldThermal:
				if !math.IsNaN(v) {
					sums.heldN++
					switch {
					case v < 50:
					case st.what == takeHeldPower:
						sums.held |= timeline.ThrottlePowerCap
					default:
						sums.held |= timeline.ThrottleSWThermal
					}
				}
			case takeLimit:
				if v > 0 {
					sums.limit = v
				}
			case takeTotal:
				if v > 0 {
					sums.total = v
				}
			default:
				sums.m[st.what].add(v)
			}
		case st.what == takeCore:
			h := e.acc.hostOf(st.host)
			for len(h.cores) <= st.slot {
				h.cores = append(h.cores, sumCount{})
			}
			h.cores[st.slot].add(v)
		case st.what == takeHost:
			e.acc.hostOf(st.host).series[st.slot].add(v)
		}
	}
}

// takeStep is where take puts the value at one position of the layout
// (at): a GPU's figure (gpu set), a core's or a host series' (slot), or
// nowhere (not in the plan).
type takeStep struct {
	gpu  *frame.GPU
	what int // a hint metric (MetricUtil...), or one of the take* below
	slot int
	host int // a core's or host series' host: its place in the frame's Hosts
	at   int
}

const (
	takeNone = frame.Metrics + iota
	takeThrottle
	takeHeldPower
	takeHeldThermal
	takeLimit
	takeTotal
	takeCore
	takeHost
)

// takePlan is take's Steps for the Deriver's layout gen, of n values:
// only those of the values it puts somewhere, in their order (a day of 8
// GPUs with NVLink takes 127 of 533; walking the rest was a third of
// take's time).
type takePlan struct {
	gen   int
	n     int
	steps []takeStep
}

// makePlans finds the place of the value of each of keys, Deriver layout
// gen, for take (takePlan), the PCIe and NVLink log (healthLog.places) and
// the phase windows (phaseState.placeValues): once per layout, not at
// every sample.
func (e *Engine) makePlans(keys []timeline.Key, gen int) {
	steps := e.plan.steps[:0]
	for i, k := range keys {
		// Every key is placed, though most go nowhere: placing a GPU's
		// makes the GPU.
		if st := e.placeOf(k); st.what != takeNone {
			st.at = i
			steps = append(steps, st)
		}
	}
	e.plan = takePlan{gen: gen, n: len(keys), steps: steps}
	e.health.places(keys)
	e.phases.placeValues(keys)
}

// hostSeriesOf is the host series of each host metric the rules read.
var hostSeriesOf = map[string]int{timeline.HostCPU: frame.HostCPU, timeline.HostIOWait: frame.HostIOWait, timeline.HostMemUsed: frame.HostMemUsed,
	timeline.HostMemTotal: frame.HostMemTotal, timeline.HostSwapUsed: frame.HostSwap, timeline.HostDiskRead: frame.HostDiskRead,
	timeline.HostDiskWrite: frame.HostDiskWrite}

// gpuTakeOf is where take puts each GPU metric the rules read: a hint
// metric, or one of the take* above. PCIe's rx and tx both go to the bus,
// summed in fillColumn.
var gpuTakeOf = map[string]int{timeline.GPUUtil: frame.MetricUtil, timeline.GPUSMActive: frame.MetricSM,
	timeline.GPUPower: frame.MetricPower, timeline.GPUMemUsed: frame.MetricMem, timeline.GPUTemp: frame.MetricTemp,
	timeline.GPUClockSM: frame.MetricClock, timeline.GPUPCIeRx: frame.MetricBus, timeline.GPUPCIeTx: frame.MetricBus,
	timeline.GPUThrottle: takeThrottle, timeline.GPUViolPower: takeHeldPower, timeline.GPUViolThermal: takeHeldThermal,
	timeline.GPUPowerLimit: takeLimit, timeline.GPUMemTotal: takeTotal}

// placeOf is where a value of key k goes.
func (e *Engine) placeOf(k timeline.Key) takeStep {
	if idx, ok := timeline.ParseGPUDevice(k.Device); ok {
		g := e.gpu(idx)
		if what, ok := gpuTakeOf[k.Name]; ok {
			return takeStep{gpu: g, what: what}
		}
		return takeStep{what: takeNone}
	}
	// A host's series and cores go to that host's columns ("host@node2",
	// "cpu3@node2" to node2's): each GPU is judged against its own host.
	device, host := timeline.SplitDeviceHost(k.Device)
	switch {
	case k.Name == timeline.CoreBusy:
		slot, ok := e.coreSlot[k.Device]
		if !ok {
			slot = e.coresOn[host]
			e.coreSlot[k.Device], e.coresOn[host] = slot, slot+1
		}
		return takeStep{what: takeCore, slot: slot, host: e.hostAt(host)}
	case k == timeline.Key{Name: timeline.ProcCPU, Device: timeline.JobDevice}:
		return takeStep{what: takeHost, slot: frame.HostJob}
	case device != timeline.HostDevice:
		return takeStep{what: takeNone}
	}
	if h, ok := hostSeriesOf[k.Name]; ok {
		return takeStep{what: takeHost, slot: h, host: e.hostAt(host)}
	}
	return takeStep{what: takeNone}
}

// gpu is the GPU of NVML index idx, made (with empty columns so far) the
// first time it is seen.
func (e *Engine) gpu(idx int) *frame.GPU {
	if g, ok := e.gpuByIndex[idx]; ok {
		return g
	}
	n := e.f.N
	g := &frame.GPU{Index: idx, Slot: len(e.gpuByIndex), Host: e.hostOfGPU(idx), Limit: math.NaN(), MemTotal: math.NaN()}
	for m := range g.Seen {
		g.Seen[m] = -1
	}
	g.State = frame.NewCol(n, frame.Unknown)
	g.Work = frame.NewFloats(n)
	e.gpuByIndex[idx] = g
	e.f.GPUs = append(e.f.GPUs, g)
	sort.Slice(e.f.GPUs, func(a, b int) bool { return e.f.GPUs[a].Index < e.f.GPUs[b].Index })
	return g
}

// grow adds empty columns up to n, the last for the sample that arrived.
// A column of a gap shorter than two intervals takes the values of the one
// before it, as the Store's Series holds a value, so that a late sample is
// not a moment of idleness; the sample's own column starts empty, so a
// metric it lacks is absent, not the last one's value kept for ever.
func (e *Engine) grow(n int) {
	f := &e.f
	from := f.N
	for f.N < n {
		i := f.N
		f.N++
		hold := i > 0 && i < n-1 && time.Duration(i-(from-1))*f.Step <= 2*f.Interval
		for _, g := range f.GPUs {
			for m := range frame.MetricThrottle {
				appendHeld(g.Series(m), hold)
			}
			if g.Throttle.Has() {
				v := int32(-1)
				if hold {
					v = g.Throttle.At(i - 1)
				}
				g.Throttle.Append(v)
			}
			g.State.Append(frame.Unknown)
			g.Work.Append(float32(math.NaN()))
		}
		for k := range f.Hosts {
			h := &f.Hosts[k]
			for k := range frame.HostCores {
				appendHeld(h.Series(k), hold)
			}
			for _, s := range []*frame.Floats{&h.TopCore, &h.BusyCores, &h.IdleCores, &h.Cores} {
				appendHeld(s, hold)
			}
			h.Busy.Append(-1)
			h.Single.Append(-1)
			h.IOHigh.Append(-1)
		}
		if hold {
			e.judgeColumn(i) // a held column is final now; the last is filled next
		}
	}
}

// appendHeld adds a column to a series seen so far: the one before it
// held, or unknown.
func appendHeld(s *frame.Floats, hold bool) {
	switch {
	case !s.Has():
	case hold && s.Len() > 0:
		s.Append(s.At(s.Len() - 1))
	default:
		s.Append(float32(math.NaN()))
	}
}

// fillColumn writes the sums of the column being filled into column i and
// judges it.
func (e *Engine) fillColumn(i int) {
	f := &e.f
	for _, slot := range e.acc.touched {
		sums := &e.acc.gpu[slot]
		g := sums.g
		for m := range frame.MetricThrottle {
			scale := 1.0
			if m == frame.MetricBus {
				scale = 2 // the mean of rx and tx, both ways: their sum
			}
			e.setMean(g.Series(m), &g.Seen[m], sums.m[m], scale, i)
		}
		if sums.m[frame.MetricThrottle].n == 0 && sums.heldN > 0 {
			sums.bits, sums.m[frame.MetricThrottle].n = sums.held, sums.heldN
		}
		if sums.m[frame.MetricThrottle].n > 0 {
			if !g.Throttle.Has() {
				g.Throttle = frame.NewCol(f.N, int32(-1))
				g.Seen[frame.MetricThrottle] = i
			}
			g.Throttle.Set(i, sums.bits)
		}
	}
	for _, g := range f.GPUs {
		g.LimitAt.Set(i, float32(e.limitOf(g, i)))
		total := g.MemTotalAt.Get(i - 1)
		if sums := e.acc.at(g); sums != nil && sums.total > 0 && !(sums.total <= total) {
			total = sums.total
		} else if t := e.infoOf(g.Index).MemTotal; t > 0 && math.IsNaN(total) {
			total = t
		}
		g.MemTotalAt.Set(i, float32(total))
	}
	for k := range e.acc.host {
		e.fillHost(&f.Hosts[k], &e.acc.host[k], i)
	}
	e.judgeColumn(i)
}

// setMean writes the mean of sc, times scale, into column i of s, where
// sc took any value; a series seen first now is made, and seen noted.
func (e *Engine) setMean(s *frame.Floats, seen *int, sc sumCount, scale float64, i int) {
	if sc.n == 0 {
		return
	}
	if !s.Has() {
		*s = frame.NewFloats(e.f.N)
		*seen = i
	}
	s.Set(i, float32(sc.mean()*scale))
}

// fillHost writes host h's sums into its column i.
func (e *Engine) fillHost(h *frame.Host, sums *hostSums, i int) {
	f := &e.f
	for k := range frame.HostCores {
		e.setMean(h.Series(k), &h.Seen[k], sums.series[k], 1, i)
	}
	if len(sums.cores) > 0 {
		if !h.Cores.Has() {
			h.TopCore, h.BusyCores, h.IdleCores, h.Cores = frame.NewFloats(f.N), frame.NewFloats(f.N), frame.NewFloats(f.N), frame.NewFloats(f.N)
			h.Seen[frame.HostCores] = i
		}
		var top, busy, idle, n float32
		for _, c := range sums.cores {
			if c.n == 0 {
				continue
			}
			v := float32(c.mean())
			n++
			top = max(top, v)
			if float64(v) >= f.Opts.BusyCore {
				busy++
			}
			if float64(v) <= f.Opts.IdleCore {
				idle++
			}
		}
		if n > 0 {
			h.TopCore.Set(i, top)
			h.BusyCores.Set(i, busy)
			h.IdleCores.Set(i, idle)
			h.Cores.Set(i, n)
		}
	}
}

// limitOf is a GPU's power limit at column i: sampled now or before, else
// the description's.
func (e *Engine) limitOf(g *frame.GPU, i int) float64 {
	if sums := e.acc.at(g); sums != nil && sums.limit > 0 {
		return sums.limit
	}
	if l := g.LimitAt.Get(i - 1); l > 0 {
		return l
	}
	if l := e.infoOf(g.Index).PowerLimit; l > 0 {
		return l
	}
	return math.NaN()
}

func (e *Engine) infoOf(idx int) timeline.GPUInfo {
	// An index, not a scan: asked for every GPU of every column, a scan
	// made 512 GPUs cost 512 times 512.
	if e.infoAt == nil {
		e.infoAt = make(map[int]int, len(e.info.GPUs))
		for i, gi := range e.info.GPUs {
			e.infoAt[gi.Index] = i
		}
	}
	if i, ok := e.infoAt[idx]; ok {
		return e.info.GPUs[i]
	}
	return timeline.GPUInfo{MemTotal: math.NaN(), PowerLimit: math.NaN()}
}

// judgeColumn classifies column i of every GPU, with the references known
// now, and the host's flags.
func (e *Engine) judgeColumn(i int) {
	f := &e.f
	o := f.Opts
	for _, g := range f.GPUs {
		node := e.nodeOf(g)
		clockIdle := 0.5 * max(1400, node.maxClock)
		limit := g.LimitAt.Get(i)
		ref, fromLimit, powerIdle := node.nodeRef, float32(0), max(100, 0.3*node.maxPower)
		if limit > 0 {
			ref, fromLimit, powerIdle = limit, 1, 0.3*limit
		}
		if ref > 0 {
			g.RefAt.Set(i, float32(ref))
		}
		g.RefIsLimit.Set(i, fromLimit)
		// The node's highest clock, not the GPU's own: a GPU capped from
		// its first second never shows its boost clock, but its
		// neighbours (the same model, on nearly every node) do.
		g.MaxClockAt.Set(i, float32(max(nanToZero(g.MaxClockAt.Get(i-1)), node.maxClock, nanToZero(frame.At(&g.Clock, i)))))
		g.MaxPowerAt.Set(i, float32(max(nanToZero(g.MaxPowerAt.Get(i-1)), nanToZero(frame.At(&g.Power, i)))))
		g.Classify(i, o, clockIdle, powerIdle)
		e.kept.Frozen.Judge(g, i)
	}
	f.JudgeHosts(i)
}

func nanToZero(v float64) float64 {
	if v != v {
		return 0
	}
	return v
}

// closeColumn is the end of the column being filled: what it says joins
// the running references the next columns are judged with.
func (e *Engine) closeColumn() {
	f := &e.f
	i := f.N - 1
	if i < 0 {
		return
	}
	// A freeze found now makes its columns unknown, those judged already
	// too: what was judged of them is forgotten.
	unfrozen := false
	for _, g := range f.GPUs {
		unfrozen = e.kept.Frozen.Close(f, g, i) || unfrozen
	}
	if unfrozen {
		e.cache.init()
		e.kept.Reset()
	}
	for _, g := range f.GPUs {
		node := e.nodeOf(g)
		p, u := frame.At(&g.Power, i), frame.At(&g.Util, i)
		if c := frame.At(&g.Clock, i); c > node.maxClock {
			node.maxClock = c
		}
		if p > node.maxPower {
			node.maxPower = p
		}
		if p > 0 && u >= f.Opts.WaitUtil {
			// Bounded before the conversion: int of a float beyond int's
			// range is undefined (a hostile 1e19 W once indexed at -2^63).
			w := int(min(p, 4095))
			for len(node.powerHist) <= w {
				node.powerHist = append(node.powerHist, 0)
			}
			node.powerHist[w]++
			node.powerCount++
			node.powerQ.counted(w)
			node.changed = true
		}
	}
	for k := range e.nodes {
		if node := &e.nodes[k]; node.changed {
			node.changed = false
			node.nodeRef = node.powerQ.quantile(node.powerHist, node.powerCount, 0.95)
		}
	}
}

// histCursor is a bin of a histogram that only grows, and how many values
// lie below it: where its last quantile was, from which the next is a few
// bins' walk (a walk from the first bin, each column, went over several
// hundred watts' bins 86,400 times a day).
type histCursor struct {
	bin   int
	below uint32
}

// counted notes a value counted in bin w.
func (c *histCursor) counted(w int) {
	if w < c.bin {
		c.below++
	}
}

// quantile is the q-quantile of the n values counted in hist by whole
// unit: the first bin whose values and those below it are more than
// q(n-1), rounded. The cursor moves there.
func (c *histCursor) quantile(hist []uint32, n int, q float64) float64 {
	want := uint32(math.Round(q * float64(n-1)))
	for c.bin > 0 && c.below > want {
		c.bin--
		c.below -= hist[c.bin]
	}
	for c.bin < len(hist)-1 && c.below+hist[c.bin] <= want {
		c.below += hist[c.bin]
		c.bin++
	}
	return float64(c.bin)
}

// viewAt is the frame as of t: the columns complete by t (see
// SamplesUntil).
func (e *Engine) viewAt(t time.Time) *frame.Frame {
	f := &e.f
	if e.samples == 0 || t.Before(f.From) {
		return f.View(0)
	}
	v := f.View(min(f.N, f.Col(t.Add(f.Interval))))
	// The view's last sample, as far as the columns tell: the last column
	// holds samples up to an interval before its end. The Engine's own
	// last sample where that is earlier (a report's Engine, fed up to
	// here), so that a screen holding the whole file and gputop report
	// --to the cursor cut a hint at the same moment.
	v.First, v.Last = e.first, v.Time(v.N).Add(-f.Interval)
	if e.last.Before(v.Last) {
		v.Last = e.last
	}
	return v
}
