package exporter

import (
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// Options say what an Exporter says about itself.
type Options struct {
	// Version is gputop's, for gputop_info.
	Version string
	// MaxScrapes is how many scrapes may be served at once; more are
	// refused with 503 rather than queued. Default 4.
	MaxScrapes int
	// Judge is the process's analysis, which has derived and judged each
	// sample before the Exporter sees it (the Judge observes each sample
	// first): the Exporter publishes what it is handed. Nil gives the
	// Exporter a Judge of its own, which it feeds itself.
	Judge *analysis.Judge
}

// Exporter turns samples into Prometheus metrics. Observe must be called from one goroutine at a time, in sample order; Collect and
// the Handler may be used from any number of goroutines.
type Exporter struct {
	opts Options

	// pending is what the newest sample says, kept by Observe; latest is
	// its metrics, built by the first scrape that asks for them (building
	// them for every sample, scraped every 15 s, was most of what --listen
	// cost), then swapped in and never changed after.
	pending atomic.Pointer[snapshotInput]
	latest  atomic.Pointer[snapshot]
	build   sync.Mutex // one scrape builds a sample's metrics, the others wait for them

	// The sampling side's state, touched only by Observe.
	mu        sync.Mutex // guards against misuse: Observe is not reentrant
	judge     *analysis.Judge
	ownJudge  bool // the Judge is the Exporter's own: Observe feeds it
	phase     timeline.PhaseKind
	hasPhase  bool
	phaseAt   time.Time // sample time of the last phase asked for
	lastMark  timeline.Marker
	hasMarker bool
	// lost are the GPUs a sample reported lost: a lost GPU stays lost.
	lost     []int
	episodes hintEpisodes // the evidence of each hint's episode, as first exported
	job      jobProgress  // progress.go
	// owners are the GPUs' allocations as last read (the process tier's
	// pace): a new list replaces it, never changed after, so a snapshot
	// may share it.
	owners []timeline.Owner
	// counters keeps each raw counter's last reading: a counter the probe
	// reads less often than it samples (the energy counter, every 5 s) is
	// published as last read between its reads, not left out.
	counters map[timeline.Key]float64
}

// New returns an Exporter that exports nothing of the GPUs until its first
// sample.
func New(opts Options) *Exporter {
	if opts.MaxScrapes <= 0 {
		opts.MaxScrapes = 4
	}
	return &Exporter{opts: opts, judge: opts.Judge, counters: map[timeline.Key]float64{}}
}

// phaseEvery is how often, in sample time, the current phase is asked for
// again: phases are judged in 5 s windows, so asking every sample would
// recompute the same answer.
const phaseEvery = 5 * time.Second

// Observe takes the next sample of a source described by info, and
// publishes what a scrape will send until the next one.
func (x *Exporter) Observe(s *timeline.Sample, info timeline.SourceInfo) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.judge == nil {
		x.judge, x.ownJudge = analysis.NewJudge(info), true
	}
	if x.ownJudge {
		x.judge.Take(s, info)
	}
	values, ok := x.judge.Latest(s.At)
	if !ok {
		return // a sample the analysis left out (not later than the last): no news
	}
	hints := x.judge.Hints(s.At)
	if !x.hasPhase || s.At.Sub(x.phaseAt) >= phaseEvery || s.At.Before(x.phaseAt) {
		x.phaseAt = s.At
		if ph := x.judge.Phases(x.judge.First(), x.judge.Last()); len(ph) > 0 {
			x.phase, x.hasPhase = ph[len(ph)-1].Kind, true
		}
	}
	if n := len(s.Markers); n > 0 {
		x.lastMark, x.hasMarker = s.Markers[n-1], true
	}
	x.job.observe(s)
	x.observeLost(s)
	if s.Owners != nil {
		x.owners = slices.Clone(s.Owners)
	}

	// A copy: the snapshot may be built after the next sample came.
	job := x.job
	x.pending.Store(&snapshotInput{
		version: x.opts.Version, info: info, at: s.At, counters: x.countersOf(s), values: values,
		hintSeries: x.episodes.series(hints, gpuLabelsOf(info)),
		phase:      x.phase, hasPhase: x.hasPhase, marker: x.lastMark, hasMarker: x.hasMarker,
		job: &job, lost: x.lost, owners: x.owners,
	})
}

// observeLost adds the GPUs s reports lost to x.lost. The list is only
// appended to, so a snapshot may share it.
func (x *Exporter) observeLost(s *timeline.Sample) {
	for _, ps := range s.Probes {
		if ps.State != timeline.ProbeLost {
			continue
		}
		if idx, ok := timeline.ParseGPUDevice(ps.Device); ok && !slices.Contains(x.lost, idx) {
			x.lost = append(x.lost, idx)
		}
	}
}

// Describe sends nothing: the series depend on the GPUs found, so the
// Exporter is an unchecked collector.
func (x *Exporter) Describe(chan<- *prometheus.Desc) {}

// Collect sends the newest sample's metrics, built by the first scrape of
// that sample; the next scrapes of it cost one atomic load.
func (x *Exporter) Collect(ch chan<- prometheus.Metric) {
	for _, m := range x.snapshot().metrics {
		ch <- m
	}
}

// snapshot is the newest sample's metrics, built once.
func (x *Exporter) snapshot() *snapshot {
	in := x.pending.Load()
	if in == nil {
		return &snapshot{}
	}
	if snap := x.latest.Load(); snap != nil && snap.from == in {
		return snap
	}
	x.build.Lock()
	defer x.build.Unlock()
	if snap := x.latest.Load(); snap != nil && snap.from == in {
		return snap
	}
	snap := buildSnapshot(in)
	snap.from = in
	x.latest.Store(snap)
	return snap
}

// Handler serves /metrics: the Exporter's metrics with gputop's own CPU,
// memory and Go runtime (client_golang's process and Go collectors), in
// the Prometheus text format or OpenMetrics, as the scraper asks.
func (x *Exporter) Handler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(x, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		EnableOpenMetrics:   true,
		MaxRequestsInFlight: x.opts.MaxScrapes,
		ErrorHandling:       promhttp.ContinueOnError,
	})
}
