package probes

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// SamplerConfig says what a Sampler reads and how often.
type SamplerConfig struct {
	// Interval is the time between ticks; default 1 s. main refuses values
	// under 100 ms; the Sampler takes what it is given.
	Interval time.Duration
	// Timeout is how long one tick waits for each probe; default 80 % of
	// Interval, so a tick leaves room for the screen before the next one.
	Timeout time.Duration
	// Probes are the fast tier, read every tick, in this order.
	Probes []Probe
	// Slow are the slower tier (GPU process lists), read every SlowEvery
	// ticks. Their Reading.Processes become Sample.Processes.
	Slow []Probe
	// Owners are read on the slow tier too: who each GPU is allocated
	// to (probes/owners). Their Reading.Owners become Sample.Owners.
	Owners []Probe
	// Job is the process tree of the job `gputop run` wraps, one of
	// Probes: the processes in it are the job's (Process.InJob). Nil in
	// every other session.
	Job *TreeProbe
	// SlowEvery is how many ticks apart the slow tier runs; default 5 s
	// worth of ticks.
	SlowEvery int
	// Clock is RealClock{} (the default) or a *FastClock.
	Clock Clock
	// Info is what Info returns; its Interval is filled in when zero.
	Info timeline.SourceInfo
	// AlignTicks puts every tick after the first on a multiple of Interval
	// of the clock (whole seconds at 1 s): hosts whose clocks agree then
	// sample at the same moments, so a fleet's samples compare moment for
	// moment, and a viewer of many hosts gets their samples in one burst a
	// tick rather than spread across it.
	AlignTicks bool
	// BeforeTick, if set, runs at each tick on Next's goroutine, once the
	// clock reads the tick's time and before any probe is read: a
	// simulated machine's Xid events due by then are handed out here
	// (nvidia.NVML.DrainXid), so they are on the sample of their time.
	BeforeTick func()
}

// SamplerStats counts how well the sampler kept its schedule.
type SamplerStats struct {
	// Ticks is the number of samples Next returned.
	Ticks int
	// Overruns counts ticks skipped because the caller pulled more than a
	// whole interval late, and ticks whose collection took longer than the
	// interval.
	Overruns int
	// LateProbes counts probe statuses marked late, one per probe per tick.
	LateProbes int
}

// The Sampler is what main hands the UI and the recorder.
var (
	_ timeline.Source   = (*Sampler)(nil)
	_ timeline.MarkSink = (*Sampler)(nil)
)

// ErrSamplerClosed is what Next returns once Close has been called.
var ErrSamplerClosed = errors.New("probes: sampler closed")

// slowTierPeriod is how much time apart the slow tier runs by default.
const slowTierPeriod = 5 * time.Second

// SlowTierTicks is how many ticks apart the slow tier (the GPU process
// lists) runs at interval by default: about every 5 s.
func SlowTierTicks(interval time.Duration) int {
	return max(1, int((slowTierPeriod+interval/2)/interval))
}

// Sampler runs probes on a schedule and turns each tick into one
// timeline.Sample. It is a timeline.Source (pull model: Next waits for the
// next tick) and a timeline.MarkSink.
//
// Each probe runs in its own goroutine, so a slow or hung call (a driver that
// stops answering) never delays the sample or the other probes: the tick
// waits at most Timeout, marks the probe late, throws its answer away when it
// finally comes, and does not call it again until that call has returned.
//
// Metrics come in a fixed order, fast probes in config order, then the
// sampler's own lag, then the slow tier on its ticks. A probe without an
// answer this tick keeps its place with NaN values (the keys of its last
// reading), so the layout of a sample stays the same tick to tick and
// timeline.Deriver keeps its fast path.
type Sampler struct {
	clock     Clock
	interval  time.Duration
	timeout   time.Duration
	slowEvery int
	align     bool
	before    func() // SamplerConfig.BeforeTick
	info      timeline.SourceInfo
	job       *TreeProbe // SamplerConfig.Job
	fast      []*runner
	slow      []*runner
	// results receives every finished Collect. Its capacity is the number of
	// probes and each has at most one call running, so a send never blocks,
	// even after Close.
	results chan result
	life    context.Context // cancelled by Close; parent of every Collect
	stop    context.CancelFunc

	nextMu    sync.Mutex // one Next at a time; guards the fields below
	next      time.Time  // when the next tick is due; zero before the first
	base      time.Time  // the first tick's time: At is base plus monotonic elapsed time
	last      time.Time  // At of the last sample, which the next must pass
	tick      uint64     // ticks started, for telling this tick's answers from stale ones
	collected int        // ticks collected, for the slow tier's rhythm
	// metrics are the tick's readings as build gathers them (scratch),
	// and cols the last sample's columns, handed on again while the
	// probes read the same keys.
	metrics []timeline.Metric
	cols    *timeline.Columns

	mu       sync.Mutex // guards markers and stats, which other goroutines touch
	markers  []timeline.Marker
	progress progressQueue // sampler_progress.go
	stats    SamplerStats
}

// NewSampler returns a Sampler for cfg, with defaults filled in. No probe is
// called before the first Next.
func NewSampler(cfg SamplerConfig) *Sampler {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = cfg.Interval * 8 / 10
	}
	if cfg.SlowEvery <= 0 {
		cfg.SlowEvery = SlowTierTicks(cfg.Interval)
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.Info.Interval == 0 {
		cfg.Info.Interval = cfg.Interval
	}
	life, stop := context.WithCancel(context.Background())
	s := &Sampler{
		clock:     cfg.Clock,
		interval:  cfg.Interval,
		timeout:   cfg.Timeout,
		job:       cfg.Job,
		slowEvery: cfg.SlowEvery,
		align:     cfg.AlignTicks,
		before:    cfg.BeforeTick,
		info:      cfg.Info,
		results:   make(chan result, len(cfg.Probes)+len(cfg.Slow)+len(cfg.Owners)),
		life:      life,
		stop:      stop,
	}
	for _, p := range cfg.Probes {
		s.fast = append(s.fast, newRunner(p))
	}
	for _, p := range cfg.Slow {
		s.slow = append(s.slow, newRunner(p))
	}
	for _, p := range cfg.Owners {
		r := newRunner(p)
		r.owners = true
		s.slow = append(s.slow, r)
	}
	return s
}

// Info describes the source, as given in the config.
func (s *Sampler) Info() timeline.SourceInfo { return s.info }

// Mark queues a marker made in the UI (the `m` key), timed by the sampler's
// clock now. It rides on the next sample. Safe from any goroutine.
func (s *Sampler) Mark(text string) { s.MarkFrom("key", text) }

// MarkFrom is Mark for markers from elsewhere: origin is "mark" for
// `gputop mark`, "job" for a line the wrapped job printed.
func (s *Sampler) MarkFrom(origin, text string) {
	m := timeline.Marker{At: s.clock.Now(), Text: text, Origin: origin}
	s.mu.Lock()
	s.markers = append(s.markers, m)
	s.mu.Unlock()
}

// MarkAt queues a marker made elsewhere with its own time (an Xid event
// the driver reported). Safe from any goroutine.
func (s *Sampler) MarkAt(m timeline.Marker) {
	s.mu.Lock()
	s.markers = append(s.markers, m)
	s.mu.Unlock()
}

// Stats returns the sampler's counters so far. Safe from any goroutine.
func (s *Sampler) Stats() SamplerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Close stops the sampler: every running Collect sees its context cancelled,
// and Next returns ErrSamplerClosed. It waits for no probe, since a hung one
// may never return.
func (s *Sampler) Close() { s.stop() }

// Next waits for the next tick, reads every probe that is free, and returns
// the tick's sample. It returns ctx's error if ctx ends first, and
// ErrSamplerClosed after Close.
//
// A sample's At is when its collection began, not when it was scheduled:
// counters (energy, bytes, CPU seconds) are read then, and a rate divides
// by the time between readings, so a tick that started 40 ms late must say
// so or its power reads 4 % high. At is measured on the monotonic clock from
// the first tick (base + elapsed), so it always increases, as the Store
// requires, even if NTP steps the wall clock back. How late a tick started
// against its schedule is kept as its own metric, timeline.SampleLag.
func (s *Sampler) Next(ctx context.Context) (timeline.Sample, error) {
	s.nextMu.Lock()
	defer s.nextMu.Unlock()
	if s.life.Err() != nil {
		return timeline.Sample{}, ErrSamplerClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.life, cancel)()

	if s.next.IsZero() {
		s.next = s.clock.Now() // the first tick is now: the first frame should not wait
		s.base = s.next
	}
	if err := s.clock.SleepUntil(ctx, s.next); err != nil {
		if s.life.Err() != nil {
			return timeline.Sample{}, ErrSamplerClosed
		}
		return timeline.Sample{}, err
	}
	start := s.clock.Now()
	at, skipped := s.next, 0
	if behind := start.Sub(at); behind >= s.interval {
		// Pulled late by a whole interval or more: run the newest tick that
		// is due rather than a burst of the missed ones.
		skipped = int(behind / s.interval)
		at = at.Add(time.Duration(skipped) * s.interval)
	}
	s.next = at.Add(s.interval)
	if s.align {
		s.next = onGrid(s.next, s.interval)
	}
	s.tick++
	slowDue := s.collected%s.slowEvery == 0
	s.collected++

	lag := start.Sub(at)
	at = s.base.Add(start.Sub(s.base))
	if !at.After(s.last) {
		at = s.last.Add(time.Nanosecond)
	}
	s.last = at

	if s.before != nil {
		s.before()
	}
	s.drainStale()
	launched := s.launch(s.fast, at)
	if slowDue {
		launched += s.launch(s.slow, at)
	}
	if err := s.await(ctx, launched); err != nil {
		return timeline.Sample{}, err
	}
	if s.life.Err() != nil {
		// Closed while collecting: the answers may be the probes' reaction
		// to their cancelled contexts, not readings.
		return timeline.Sample{}, ErrSamplerClosed
	}

	smp, late := s.build(at, lag, slowDue)
	overran := s.clock.Now().Sub(start) > s.interval

	s.mu.Lock()
	smp.Markers = s.takeMarkers(at)
	smp.Progress = s.takeProgress(at)
	s.stats.Ticks++
	s.stats.Overruns += skipped
	if overran {
		s.stats.Overruns++
	}
	s.stats.LateProbes += late
	s.mu.Unlock()
	return smp, nil
}

// onGrid moves t to the nearest multiple of interval of the wall clock
// (SamplerConfig.AlignTicks), by at most half an interval: the first tick
// is now and the second comes on the grid; after that, only what the wall
// clock moved against the monotonic one (NTP's slewing, microseconds a
// tick). The result keeps t's monotonic reading, which Truncate would
// drop, so a wall clock stepped back an hour never makes a tick wait an
// hour.
func onGrid(t time.Time, interval time.Duration) time.Time {
	phase := t.Sub(t.Truncate(interval))
	if phase < interval/2 {
		return t.Add(-phase)
	}
	return t.Add(interval - phase)
}

// stopReason says why ctx ended: the sampler closed, or the caller's own.
func (s *Sampler) stopReason(ctx context.Context) error {
	if s.life.Err() != nil {
		return ErrSamplerClosed
	}
	return ctx.Err()
}

// drainStale takes the answers that came in after their tick gave up on
// them: those probes are free again, and what they said is out of date.
func (s *Sampler) drainStale() {
	for {
		select {
		case res := <-s.results:
			res.runner.busy = false
		default:
			return
		}
	}
}

// launch starts every runner that is neither busy nor lost, and says how
// many it started.
func (s *Sampler) launch(runners []*runner, at time.Time) int {
	n := 0
	for _, r := range runners {
		r.answered = false
		if r.lost || r.busy {
			continue
		}
		r.busy, r.since, r.tick = true, at, s.tick
		ctx, cancel := context.WithTimeout(s.life, s.timeout)
		go s.collect(ctx, cancel, r, s.tick)
		n++
	}
	return n
}

// await collects this tick's answers until every launched probe has
// answered, the timeout passes, or ctx ends. The timeout is real time even
// on a FastClock: a hung call hangs in real time.
func (s *Sampler) await(ctx context.Context, pending int) error {
	if pending == 0 {
		return nil
	}
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	for pending > 0 {
		select {
		case res := <-s.results:
			r := res.runner
			r.busy = false
			if res.tick == s.tick {
				r.answered, r.res = true, res
				pending--
			}
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return s.stopReason(ctx)
		}
	}
	return nil
}

// build assembles the tick's sample from the runners' states, and counts
// the probes marked late.
func (s *Sampler) build(at time.Time, lag time.Duration, slowDue bool) (timeline.Sample, int) {
	smp := timeline.Sample{
		At:     at,
		Probes: make([]timeline.ProbeStatus, 0, len(s.fast)+len(s.slow)),
	}
	late, ms := 0, s.metrics[:0]
	report := func(r *runner) bool {
		var st timeline.ProbeStatus
		var answered bool
		ms, st, answered = r.report(ms, s.tick, at, s.timeout, s.interval)
		if st.State == timeline.ProbeLate {
			late++
		}
		smp.Probes = append(smp.Probes, st)
		return answered
	}
	for _, r := range s.fast {
		report(r)
	}
	s.mu.Lock()
	overruns := s.stats.Overruns
	s.mu.Unlock()
	ms = append(ms, timeline.Metric{
		Key:   timeline.Key{Name: timeline.SampleLag, Device: timeline.SelfDevice},
		Kind:  timeline.Gauge,
		Value: lag.Seconds(),
	}, timeline.Metric{
		Key:   timeline.Key{Name: timeline.SampleOverruns, Device: timeline.SelfDevice},
		Kind:  timeline.Gauge,
		Value: float64(overruns),
	})
	if slowDue {
		var procs []timeline.Process
		var owners []timeline.Owner
		answered, ownersRead := false, false
		for _, r := range s.slow {
			if !report(r) {
				continue
			}
			if r.owners {
				// A source that failed says nothing of its allocations:
				// unknown this tick (nil), not none.
				if r.res.err == nil {
					ownersRead = true
					owners = append(owners, r.res.reading.Owners...)
				}
				continue
			}
			answered = true
			procs = append(procs, r.res.reading.Processes...)
		}
		if answered && procs == nil {
			procs = []timeline.Process{} // a fresh answer: no process holds a GPU
		}
		if s.job != nil {
			s.job.markJob(procs)
		}
		smp.Processes = procs
		if ownersRead && owners == nil {
			owners = []timeline.Owner{} // a fresh answer: no GPU is allocated
		}
		smp.Owners = owners
	}
	// Fresh values each tick: whoever pulled the last sample may still
	// hold it.
	smp.Columns = s.cols
	smp.SetMetrics(ms)
	s.metrics, s.cols = ms, smp.Columns
	return smp, late
}

// takeMarkers removes and returns the queued markers made at or before at.
// Later ones (made while this tick was being collected) wait for the next
// sample, so a marker never comes before the sample that carries it.
// The caller holds s.mu.
func (s *Sampler) takeMarkers(at time.Time) []timeline.Marker {
	return takeUntil(&s.markers, at, func(m timeline.Marker) time.Time { return m.At })
}

// takeUntil removes from *queue and returns, in order, the items whose time
// is at or before at; the later ones stay queued.
func takeUntil[T any](queue *[]T, at time.Time, timeOf func(T) time.Time) []T {
	var out []T
	kept := (*queue)[:0]
	for _, x := range *queue {
		if timeOf(x).After(at) {
			kept = append(kept, x)
		} else {
			out = append(out, x)
		}
	}
	clear((*queue)[len(kept):])
	*queue = kept
	return out
}
