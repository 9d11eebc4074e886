package report

import (
	"encoding/json"
	"io"
	"math"
	"time"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
)

// ReportVersion is the version of the report JSON (docs/report.md).
const ReportVersion = 1

// ReportOptions tunes a report. A zero field takes its default.
type ReportOptions struct {
	// IdleUtil is the utilisation (%) below which a GPU counts as idle for
	// its idle fraction. Zero: the phases' IdleUtil, 5.
	IdleUtil float64
	// PhaseRows is how many phases of each table the text and markdown
	// forms list, the longest, before summing up the rest (the JSON has them
	// all). Zero: 20; negative: all (`gputop report --phases all`).
	PhaseRows int
	// TextWidth is how wide the text form may make the rows it would
	// otherwise cut (a process's command line): zero for an 80-column
	// terminal, or a terminal's own width; negative for no limit (a file
	// or a pipe, where tools read the whole line).
	TextWidth int
	// TimelineColumns, when positive, has the report keep each GPU's
	// series resampled to that many columns (Report.Timeline), for the
	// forms that draw them: HTML and SVG (render.TimelineColumns, a
	// column a pixel of the drawing).
	TimelineColumns int
	// PriceKWh and PriceGPUHour are what a kWh and an hour of one GPU
	// cost (--price-kwh, --price-gpu-hour); zero: not known, and the
	// report states no cost.
	PriceKWh, PriceGPUHour float64
}

func (o ReportOptions) withDefaults() ReportOptions {
	if o.IdleUtil <= 0 {
		o.IdleUtil = analysis.DefaultPhaseOptions().IdleUtil
	}
	if o.PhaseRows == 0 {
		o.PhaseRows = 20
	}
	return o
}

// Report is what `gputop report` and `gputop run` print: per-GPU and
// per-phase figures, the host, phases, markers and hints of one session.
// Its JSON form is a contract that scripts rely on, documented field by
// field in docs/report.md. Times are seconds since Start; unknown numbers are NaN,
// null in JSON, N/A in text.
type Report struct {
	Version int          `json:"version"`
	Source  ReportSource `json:"source"`
	// Start is the first sample's time, in UTC; nil when there are none.
	Start    *time.Time `json:"start"`
	Duration Number     `json:"duration_s"`
	// IdleUtil is the utilisation (%) under which a GPU counts as idle in
	// its idle_fraction.
	IdleUtil Number `json:"idle_util"`
	// Hosts are the hosts of a session of several, in order, each with its
	// figures; absent in a session of one.
	Hosts []ReportHostSummary `json:"hosts,omitempty"`
	GPUs  []ReportGPU         `json:"gpus"`
	// PhysicalGPUs and MIGInstances, in a session with MIG, count GPUs'
	// whole GPUs and MIG instances; both absent without MIG, where every
	// GPU is whole.
	PhysicalGPUs int            `json:"physical_gpus,omitempty"`
	MIGInstances int            `json:"mig_instances,omitempty"`
	Host         ReportHost     `json:"host"`
	Phases       []ReportPhase  `json:"phases"`
	Markers      []ReportMarker `json:"markers"`
	Hints        []ReportHint   `json:"hints"`
	// Processes held a GPU during the report (processes.go).
	Processes []ReportProcess `json:"processes"`
	// Owners are the pods and Slurm jobs the GPUs were allocated to, most
	// GPU time first (owners.go); absent in a session without owners.
	Owners []ReportOwner `json:"owners,omitempty"`
	// Work is the energy, GPU time and cost of the session and its phases,
	// and the job's own progress where it stated it (work.go).
	Work ReportWork `json:"work"`
	// Gaps are pauses in sampling; every figure above leaves them out.
	Gaps []ReportGap `json:"gaps"`
	// Notes explain what could not be sampled, and where figures are less
	// exact than elsewhere.
	Notes []string `json:"notes"`
	// Timeline is what the HTML and SVG forms draw; nil unless
	// ReportOptions.TimelineColumns asked for it. Not in the JSON.
	Timeline *ReportTimeline `json:"-"`
	// PhaseRows and TextWidth are ReportOptions' own, kept for the
	// writers (timeline/report/render). Not in the JSON: a report read back
	// from it lists every phase and cuts no row.
	PhaseRows int `json:"-"`
	TextWidth int `json:"-"`
}

// ReportSource says where the samples came from.
type ReportSource struct {
	Kind     string   `json:"kind"`               // live, demo, replay, import
	Recorded string   `json:"recorded,omitempty"` // for a replay: what the file was recorded from
	Scenario string   `json:"scenario,omitempty"`
	Origin   string   `json:"origin,omitempty"` // the file replayed or the log imported
	Host     string   `json:"host"`
	Driver   string   `json:"driver"`
	CUDA     string   `json:"cuda"`
	Command  []string `json:"command,omitempty"`
	Interval Number   `json:"interval_s"`
}

// ReportGPU is one GPU over the whole session.
type ReportGPU struct {
	Index int `json:"index"`
	// Host is the GPU's host and HostIndex the number its host gives it,
	// in a session of several hosts; both absent in a session of one.
	Host      string `json:"host,omitempty"`
	HostIndex *int   `json:"host_index,omitempty"`
	Name      string `json:"name"`
	UUID      string `json:"uuid,omitempty"`
	// MIGProfile and MIGParent, on a MIG instance: its profile ("1g.10gb")
	// and the index of the physical GPU it is a slice of.
	MIGProfile string      `json:"mig_profile,omitempty"`
	MIGParent  *int        `json:"mig_parent,omitempty"`
	Util       ReportStats `json:"util"`
	SMActive   ReportStats `json:"sm_active"`
	// IdleFraction is the share of the sampled time with utilisation below
	// the report's idle threshold (gaps are not counted at all).
	IdleFraction Number `json:"idle_fraction"`
	MemUsedMax   Number `json:"mem_used_max_bytes"`
	MemTotal     Number `json:"mem_total_bytes"`
	PowerMean    Number `json:"power_mean_w"`
	PowerLimit   Number `json:"power_limit_w"`
	// Energy is power integrated over the time each sample stands for.
	Energy Number `json:"energy_j"`
	Lost   bool   `json:"lost"`
	LostAt Number `json:"lost_at_s"`
	// Health is its links, errors and clocks held back; absent where none
	// was recorded.
	Health *GPUHealth `json:"health,omitempty"`
}

// ReportHost is the host over the whole session, and the job `gputop run`
// wrapped where there is one.
type ReportHost struct {
	CPU         ReportStats `json:"cpu"` // % of all cores
	IOWait      ReportStats `json:"iowait"`
	Cores       int         `json:"cores"`
	RAMUsedMax  Number      `json:"ram_used_max_bytes"`
	RAMTotal    Number      `json:"ram_total_bytes"`
	SwapUsedMax Number      `json:"swap_used_max_bytes"`
	JobCPU      ReportStats `json:"job_cpu"` // % of one core
	JobRSSMax   Number      `json:"job_rss_max_bytes"`
}

// ReportPhase is one phase, automatic or marked, with brief figures.
type ReportPhase struct {
	Start    Number `json:"start_s"`
	End      Number `json:"end_s"`
	Kind     string `json:"kind"`  // busy, stalled, idle, marker
	Label    string `json:"label"` // the marker's text; "" for automatic phases
	Duration Number `json:"duration_s"`
	// UtilMean and SMActiveMean are means over the GPUs with data.
	UtilMean     Number `json:"util_mean"`
	SMActiveMean Number `json:"sm_active_mean"`
	// WorstGPU is the GPU with the lowest mean utilisation, when at least
	// two have data.
	WorstGPU      *int             `json:"worst_gpu"`
	WorstUtilMean Number           `json:"worst_util_mean"`
	HostCPUMean   Number           `json:"host_cpu_mean"`
	JobCPUMean    Number           `json:"job_cpu_mean"`
	GPUs          []ReportPhaseGPU `json:"gpus"`
}

// ReportPhaseGPU is one GPU in one phase.
type ReportPhaseGPU struct {
	Index        int    `json:"index"`
	UtilMean     Number `json:"util_mean"`
	SMActiveMean Number `json:"sm_active_mean"`
}

// ReportMarker is one marker.
type ReportMarker struct {
	At     Number `json:"at_s"`
	Text   string `json:"text"`
	Origin string `json:"origin"`
}

// ReportHint is one hint, as the hint rules gave it: one finding, with
// the episodes where it held.
type ReportHint struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	GPUs     []int  `json:"gpus"`
	// Start and End are when it was first and last seen: its first
	// episode's start and its last one's end.
	Start      Number `json:"start_s"`
	End        Number `json:"end_s"`
	Evidence   string `json:"evidence"`
	Suggestion string `json:"suggestion"`
	Confidence Number `json:"confidence"`
	// Provisional: a reading of less than the rule's full window so far
	// (the report ends in it); it may firm up or go.
	Provisional bool `json:"provisional"`
	// Ongoing: it still holds at the report's end; otherwise it ended at
	// end_s.
	Ongoing  bool            `json:"ongoing"`
	Episodes []ReportEpisode `json:"episodes"`
}

// ReportEpisode is one stretch where a hint held, largest first.
type ReportEpisode struct {
	Start       Number `json:"start_s"`
	End         Number `json:"end_s"`
	GPUs        []int  `json:"gpus"`
	Severity    string `json:"severity"`
	Evidence    string `json:"evidence"`
	Provisional bool   `json:"provisional"`
}

// Analysis is what the report says beyond its figures: the hints and the
// automatic phases, as analysis.Engine gives them (see Analyse).
type Analysis struct {
	Hints  []timeline.Hint
	Phases []timeline.Phase
	// Owners are the stretches the GPUs were allocated (Engine.OwnerSpans).
	Owners []analysis.OwnerSpan
}

// Analyse is what e says of everything added to it: the hints of its
// last moment and the phases from its first sample to its last.
func Analyse(e *analysis.Engine) Analysis {
	if e.Len() == 0 {
		return Analysis{}
	}
	return Analysis{Hints: e.Hints(e.Last()), Phases: e.Phases(e.First(), e.Last()), Owners: e.OwnerSpans()}
}

// ReportGap is a pause in sampling, between two sample times.
type ReportGap struct {
	Start Number `json:"start_s"`
	End   Number `json:"end_s"`
}

// WriteJSON writes the report as indented JSON, the documented contract.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// NewReport summarises everything s holds, from its first sample to its
// last, with the hints (sorted here, worst first) and automatic phases of
// a (see Analyse).
func NewReport(s *timeline.Store, info timeline.SourceInfo, a Analysis, opts ReportOptions) *Report {
	return newReport(s, info, a, nil, opts)
}

// NewReportOf is NewReport of s with what e says of everything added to
// it (Analyse) and e's description, the hints worked out beside the
// report's figures, which do not need them: a tenth of a second for a day
// of 8 GPUs, once the figures' workers are done with the processors, was
// all the report's. e must not be used until it returns.
func NewReportOf(s *timeline.Store, e *analysis.Engine, opts ReportOptions) *Report {
	info := e.Info()
	if e.Len() == 0 {
		return NewReport(s, info, Analysis{}, opts)
	}
	a := Analysis{Phases: e.Phases(e.First(), e.Last()), Owners: e.OwnerSpans()}
	hints := make(chan []timeline.Hint, 1)
	last := e.Last()
	go func() { hints <- e.Hints(last) }()
	return newReport(s, info, a, hints, opts)
}

// newReport is NewReport, the hints coming from pending where it is not
// nil (NewReportOf).
func newReport(s *timeline.Store, info timeline.SourceInfo, a Analysis, pending <-chan []timeline.Hint, opts ReportOptions) *Report {
	opts = opts.withDefaults()
	r := &Report{
		Version: ReportVersion, Source: repSource(info), Duration: Number(math.NaN()), IdleUtil: Number(opts.IdleUtil),
		GPUs: []ReportGPU{}, Phases: []ReportPhase{}, Markers: []ReportMarker{}, Hints: []ReportHint{}, Processes: []ReportProcess{},
		Gaps: []ReportGap{}, Notes: append([]string{}, info.Notes...), PhaseRows: opts.PhaseRows, TextWidth: opts.TextWidth,
	}
	b := repBuilder{s: s, info: info, opts: opts, r: r, pending: pending}
	if s.Len() > 0 {
		b.from, b.to = s.First(), s.Last()
		start := b.from.UTC()
		r.Start = &start
		r.Duration = Number(b.to.Sub(b.from).Seconds())
		b.step = int64(s.Interval())
		if b.step <= 0 {
			b.step = int64(info.Interval)
		}
		if b.step <= 0 {
			b.step = int64(time.Second)
		}
	}
	b.build(a)
	for _, g := range r.GPUs {
		if g.MIGProfile != "" {
			r.MIGInstances++
		}
	}
	if r.MIGInstances > 0 {
		r.PhysicalGPUs = len(r.GPUs) - r.MIGInstances
	}
	return r
}

func repSource(info timeline.SourceInfo) ReportSource {
	src := ReportSource{Kind: info.Kind.String(), Scenario: info.Scenario, Origin: info.Origin, Host: info.Host,
		Driver: info.Driver, CUDA: info.CUDA, Command: info.Command, Interval: Number(math.NaN())}
	if info.Kind == timeline.Replay {
		src.Recorded = info.Recorded.String()
	}
	if info.Interval > 0 {
		src.Interval = Number(info.Interval.Seconds())
	}
	return src
}
