package diff

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
)

// Version is the version of the diff JSON (docs/diff.md).
const Version = 1

// Diff is two reports of the same job side by side: run A (the baseline)
// and run B (the change). Every figure is one of Metrics, a phase or a
// hint; what makes the runs hard to compare (other GPUs, other hosts, very
// different lengths) is said in Notes.
type Diff struct {
	Version int `json:"version"`
	A       Run `json:"a"`
	B       Run `json:"b"`
	// Metrics are the figures over every GPU, in the order of Metrics'
	// names (docs/diff.md).
	Metrics []Metric `json:"metrics"`
	// Phases are the time spent in each automatic phase kind and in each
	// marked phase, matched by kind and by marker label.
	Phases []Phase `json:"phases"`
	// Hints are those that appeared, disappeared or changed severity;
	// hints alike in both are left out.
	Hints []Hint   `json:"hints"`
	Notes []string `json:"notes"`
	// Owners are the pods and Slurm jobs either run's GPUs were allocated
	// to (owners.go); absent where neither run knows owners.
	Owners []Owner `json:"owners,omitempty"`
}

// Run says which recording a side is.
type Run struct {
	Name     string        `json:"name"` // the file, as given
	Source   string        `json:"source"`
	Start    string        `json:"start"` // RFC 3339, "" without samples
	Duration report.Number `json:"duration_s"`
	GPUs     int           `json:"gpus"`
	Hosts    []string      `json:"hosts"`
}

// Metric is one figure in both runs. Change is B-A in the metric's unit;
// Relative is Change/|A| (0.05 for 5 % more), NaN (null) where A is zero
// or either is unknown.
type Metric struct {
	Name     string        `json:"name"`
	Unit     string        `json:"unit"` // %, s, W, J, B
	A        report.Number `json:"a"`
	B        report.Number `json:"b"`
	Change   report.Number `json:"change"`
	Relative report.Number `json:"relative"`
	// Better says which way is an improvement: "up", "down" or "" where
	// neither is (memory, duration of a fixed amount of work is "down").
	Better string `json:"better"`
}

// Phase is the time in one phase kind or marked phase in both runs; a
// phase one run lacks has 0 there.
type Phase struct {
	Kind  string        `json:"kind"`  // busy, stalled, idle, marker
	Label string        `json:"label"` // the marker's text; "" for a kind
	A     report.Number `json:"a_s"`
	B     report.Number `json:"b_s"`
	// Count is how many phases of it each run has.
	CountA int `json:"count_a"`
	CountB int `json:"count_b"`
}

// Hint is a hint that changed: "appeared" (only in B), "gone" (only in
// A) or "severity" (in both, of another severity).
type Hint struct {
	ID        string `json:"id"`
	Change    string `json:"change"`
	SeverityA string `json:"severity_a"` // "" where absent
	SeverityB string `json:"severity_b"`
	EvidenceA string `json:"evidence_a"`
	EvidenceB string `json:"evidence_b"`
}

// The metrics' names, the first word of each --fail-if condition.
const (
	MetricDuration = "duration"
	MetricBusy     = "busy"
	MetricUtil     = "util"
	MetricUtilP10  = "util_p10"
	MetricUtilP90  = "util_p90"
	MetricSM       = "sm"
	MetricPower    = "power"
	MetricEnergy   = "energy"
	MetricMemory   = "memory"
)

// Metrics lists the metrics' names in the order a diff lists them.
var Metrics = []string{MetricDuration, MetricBusy, MetricUtil, MetricUtilP10, MetricUtilP90, MetricSM, MetricPower,
	MetricEnergy, MetricMemory}

// New compares run a with run b, named as given.
func New(nameA string, a *report.Report, nameB string, b *report.Report) *Diff {
	d := &Diff{Version: Version, A: run(nameA, a), B: run(nameB, b), Metrics: []Metric{}, Phases: []Phase{},
		Hints: []Hint{}, Notes: []string{}}
	fa, fb := figures(a), figures(b)
	for _, name := range Metrics {
		d.Metrics = append(d.Metrics, metricOf(name, unitOf[name], better[name], fa[name], fb[name]))
	}
	d.Phases = phases(a, b)
	d.Hints = hints(a, b)
	d.Owners = owners(a, b)
	d.Notes = notes(d, a, b)
	return d
}

// Metric returns the metric of that name, and whether there is one.
func (d *Diff) Metric(name string) (Metric, bool) {
	if i := slices.IndexFunc(d.Metrics, func(m Metric) bool { return m.Name == name }); i >= 0 {
		return d.Metrics[i], true
	}
	return Metric{}, false
}

var unitOf = map[string]string{MetricDuration: "s", MetricBusy: "%", MetricUtil: "%", MetricUtilP10: "%",
	MetricUtilP90: "%", MetricSM: "%", MetricPower: "W", MetricEnergy: "J", MetricMemory: "B"}

var better = map[string]string{MetricDuration: "down", MetricBusy: "up", MetricUtil: "up", MetricUtilP10: "up",
	MetricUtilP90: "up", MetricSM: "up", MetricPower: "", MetricEnergy: "down", MetricMemory: ""}

func run(name string, r *report.Report) Run {
	out := Run{Name: name, Source: r.Source.Kind, Duration: r.Duration, GPUs: len(r.GPUs), Hosts: []string{}}
	if r.Source.Scenario != "" {
		out.Source += " " + r.Source.Scenario
	}
	if r.Start != nil {
		out.Start = r.Start.Format("2006-01-02T15:04:05Z07:00")
	}
	for _, h := range r.Hosts {
		out.Hosts = append(out.Hosts, h.Name)
	}
	if len(out.Hosts) == 0 && r.Source.Host != "" {
		out.Hosts = append(out.Hosts, r.Source.Host)
	}
	return out
}

// figures are a run's metrics over all its GPUs: utilisation, its tails
// and SM activity as the mean of the GPUs' (each GPU's p10 is its own,
// the GPUs' p10s averaged); power and energy summed; memory the fullest
// GPU's peak (report.SumGPUs; the tails' means timeline.SumHost's, as
// utilisation's is); busy the share of the automatic phases' time that was
// busy.
func figures(r *report.Report) map[string]float64 {
	f := map[string]float64{MetricDuration: float64(r.Duration)}
	// Each GPU's tail stands for its utilisation, and SumHost means them.
	var p10, p90 []timeline.GPUFigures
	for _, g := range r.GPUs {
		p10 = append(p10, timeline.GPUFigures{Util: float64(g.Util.P10)})
		p90 = append(p90, timeline.GPUFigures{Util: float64(g.Util.P90)})
	}
	f[MetricUtilP10], f[MetricUtilP90] = timeline.SumHost(p10).UtilMean, timeline.SumHost(p90).UtilMean
	sum := report.SumGPUs(r.GPUs)
	f[MetricUtil] = sum.UtilMean
	f[MetricSM], f[MetricPower], f[MetricEnergy], f[MetricMemory] = sum.SMActiveMean, sum.Power, sum.Energy, sum.MemPeak
	var busy, all float64
	for _, p := range r.Phases {
		if p.Kind == timeline.PhaseMarked.String() {
			continue
		}
		all += float64(p.Duration)
		if p.Kind == timeline.PhaseBusy.String() {
			busy += float64(p.Duration)
		}
	}
	f[MetricBusy] = math.NaN()
	if all > 0 {
		f[MetricBusy] = 100 * busy / all
	}
	return f
}

// phases sums each run's time by automatic kind and by marker label, and
// lists them: the kinds first, then the labels in the order they first
// appear in A, then in B.
func phases(a, b *report.Report) []Phase {
	type key struct{ kind, label string }
	var order []key
	byKey := map[key]*Phase{}
	for _, k := range []timeline.PhaseKind{timeline.PhaseBusy, timeline.PhaseStalled, timeline.PhaseIdle} {
		kk := key{k.String(), ""}
		byKey[kk] = &Phase{Kind: kk.kind}
		order = append(order, kk)
	}
	for side, r := range []*report.Report{a, b} {
		for _, p := range r.Phases {
			k := key{p.Kind, p.Label}
			if p.Kind != timeline.PhaseMarked.String() {
				k.label = ""
			}
			ph := byKey[k]
			if ph == nil {
				ph = &Phase{Kind: k.kind, Label: k.label}
				byKey[k] = ph
				order = append(order, k)
			}
			spent, count := &ph.A, &ph.CountA
			if side == 1 {
				spent, count = &ph.B, &ph.CountB
			}
			*spent += p.Duration
			*count++
		}
	}
	out := []Phase{}
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out
}

// hints matches the runs' hints by id: one only in B appeared, one only in
// A is gone, one in both of another severity changed.
func hints(a, b *report.Report) []Hint {
	find := func(r *report.Report, id string) *report.ReportHint {
		if i := slices.IndexFunc(r.Hints, func(h report.ReportHint) bool { return h.ID == id }); i >= 0 {
			return &r.Hints[i]
		}
		return nil
	}
	out := []Hint{}
	for _, ha := range a.Hints {
		hb := find(b, ha.ID)
		switch {
		case hb == nil:
			out = append(out, Hint{ID: ha.ID, Change: "gone", SeverityA: ha.Severity, EvidenceA: ha.Evidence})
		case hb.Severity != ha.Severity:
			out = append(out, Hint{ID: ha.ID, Change: "severity", SeverityA: ha.Severity, SeverityB: hb.Severity,
				EvidenceA: ha.Evidence, EvidenceB: hb.Evidence})
		}
	}
	for _, hb := range b.Hints {
		if find(a, hb.ID) == nil {
			out = append(out, Hint{ID: hb.ID, Change: "appeared", SeverityB: hb.Severity, EvidenceB: hb.Evidence})
		}
	}
	return out
}

// notes say what makes the runs hard to compare.
func notes(d *Diff, a, b *report.Report) []string {
	out := []string{}
	if d.A.GPUs != d.B.GPUs {
		out = append(out, "the runs have different GPU counts ("+strconv.Itoa(d.A.GPUs)+" and "+strconv.Itoa(d.B.GPUs)+
			"): utilisation and SM activity are means over each run's own GPUs, power and energy their sums")
	}
	if !slices.Equal(d.A.Hosts, d.B.Hosts) {
		out = append(out, "the runs are of different hosts ("+hostList(d.A.Hosts)+" and "+hostList(d.B.Hosts)+")")
	}
	if la, lb := float64(d.A.Duration), float64(d.B.Duration); la > 0 && lb > 0 && max(la, lb) > 1.5*min(la, lb) {
		out = append(out, "the runs differ in length by more than half: energy is a sum over each run's own length, "+
			"means and shares compare alike")
	}
	if names(a) != names(b) {
		out = append(out, "the runs have different GPU models ("+names(a)+" and "+names(b)+")")
	}
	return out
}

func hostList(h []string) string {
	if len(h) == 0 {
		return "unnamed"
	}
	return strings.Join(h, ", ")
}

// names is the set of a run's GPU models, sorted: "H100 80GB HBM3".
func names(r *report.Report) string {
	var out []string
	for _, g := range r.GPUs {
		if n := strings.TrimPrefix(g.Name, "NVIDIA "); n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), ", ")
}
