package exporter

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gputop-dev/gputop/timeline"
)

// snapshot is what every scrape sends until the next sample: const
// metrics, immutable, so concurrent scrapes share them without a lock.
type snapshot struct {
	metrics []prometheus.Metric
	from    *snapshotInput // what it was built from
}

// gpuLabels are dcgm-exporter's labels on every GPU series, in its order.
// A bus id NVML did not give is "", which Prometheus takes for no label.
var gpuLabels = []string{"gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname"}

// migLabels are a MIG instance's, as dcgm-exporter gives them: the
// physical GPU's gpu, UUID, bus id, device and model, with the instance's
// profile and GPU instance id after them. A series of one name may carry
// either set (Prometheus allows it, and dcgm-exporter does it).
var migLabels = []string{"gpu", "UUID", "pci_bus_id", "device", "modelName", "GPU_I_PROFILE", "GPU_I_ID", "Hostname"}

// ownerLabels are dcgm-exporter's labels of a GPU's allocation, which it
// adds to a GPU's series with --kubernetes (pod, namespace, container) or
// --hpc-job-mapping-dir (hpc_job; not "job", which is Prometheus' own
// label of the scrape target and would be renamed exported_job).
var ownerLabels = []string{"pod", "namespace", "container", "hpc_job"}

// gpuSeries is one GPU metric of gputop's under its exported name.
type gpuSeries struct {
	desc    *prometheus.Desc
	migDesc *prometheus.Desc // the same for a MIG instance
	// ownedDesc and ownedMigDesc are the same for a GPU allocated to an
	// owner, with ownerLabels after the others.
	ownedDesc, ownedMigDesc *prometheus.Desc
	kind                    prometheus.ValueType
	scale                   float64 // exported = gputop's value × scale
}

func newGPUSeries(name, help string, kind prometheus.ValueType, scale float64) gpuSeries {
	return gpuSeries{desc: prometheus.NewDesc(name, help, gpuLabels, nil),
		migDesc:      prometheus.NewDesc(name, help, migLabels, nil),
		ownedDesc:    prometheus.NewDesc(name, help, slices.Concat(gpuLabels, ownerLabels), nil),
		ownedMigDesc: prometheus.NewDesc(name, help, slices.Concat(migLabels, ownerLabels), nil),
		kind:         kind, scale: scale}
}

// descFor is the series' description for a GPU with labels l.
func (s gpuSeries) descFor(l gpuLabelValues) *prometheus.Desc {
	switch {
	case l.mig && l.owner != nil:
		return s.ownedMigDesc
	case l.mig:
		return s.migDesc
	case l.owner != nil:
		return s.ownedDesc
	}
	return s.desc
}

// gpuGauges maps gputop's display metrics (after Derive: power from the
// energy counter, PCIe rates from the byte counters) to the series that
// carry them, and gpuCounters the raw counters exported as counters (the
// energy, the violation times), by gputop's raw metric name: both from the
// catalogue's Prometheus column (timeline.SeriesOf), the one table the
// importer reads back by.
var gpuGauges, gpuCounters = exportedSeries()

func exportedSeries() (gauges, counters map[string]gpuSeries) {
	gauges, counters = map[string]gpuSeries{}, map[string]gpuSeries{}
	timeline.EachSeries(func(metric string, s timeline.Series) {
		if s.ReadOnly {
			return
		}
		kind, into := prometheus.GaugeValue, gauges
		if s.Counter {
			kind = prometheus.CounterValue
		}
		if s.Raw {
			into = counters
		}
		into[metric] = newGPUSeries(s.Name, s.Help, kind, s.Scale)
	})
	return gauges, counters
}

var (
	infoDesc = prometheus.NewDesc("gputop_info", "What gputop samples: always 1, with its version and source (live or demo) as labels.",
		[]string{"version", "source", "scenario", "driver", "cuda", "Hostname"}, nil)
	lastSampleDesc = prometheus.NewDesc("gputop_last_sample_timestamp_seconds", "When the sample exported was taken (Unix time).", nil, nil)
	sampleLagDesc  = prometheus.NewDesc("gputop_sample_lag_seconds", "How late the last tick started.", nil, nil)
	overrunsDesc   = prometheus.NewDesc("gputop_sample_overruns_total", "Ticks that overran their interval or were skipped since gputop started.", nil, nil)
	phaseDesc      = prometheus.NewDesc("gputop_phase", "The current automatic phase of the job: 1 for the kind it is in, 0 for the others.",
		[]string{"kind"}, nil)
	markerDesc = prometheus.NewDesc("gputop_last_marker_timestamp_seconds", "When the last marker was dropped (Unix time), with its text.",
		[]string{"text"}, nil)
	// lostDesc says which GPUs fell off the bus: a lost GPU's other series
	// end, which a scrape cannot tell from a GPU taken out of the list, and
	// the analysis (gpu-error) and an import need to know it was lost.
	lostDesc = prometheus.NewDesc("gputop_gpu_lost", "1 for a GPU that stopped answering NVML (fell off the bus); no series for one that answers.",
		gpuLabels, nil)
)

// phaseKinds are the kinds gputop_phase reports, one series each.
var phaseKinds = []timeline.PhaseKind{timeline.PhaseBusy, timeline.PhaseStalled, timeline.PhaseIdle}

// snapshotInput is what one sample says, with what the analysis made of
// everything up to it.
type snapshotInput struct {
	version string
	info    timeline.SourceInfo
	at      time.Time
	// counters are the sample's raw counters that are published as they
	// are (copied: the sample goes on to other sinks).
	counters []timeline.Metric
	values   []timeline.Value
	// hintSeries are the hints that hold, one per id and GPU
	// (hints_series.go).
	hintSeries []hintSeries
	phase      timeline.PhaseKind
	hasPhase   bool
	marker     timeline.Marker
	hasMarker  bool
	job        *jobProgress // nil: none
	lost       []int        // the GPUs reported lost, by NVML index
	owners     []timeline.Owner
}

// countersOf copies the metrics of s that buildSnapshot publishes raw, each
// NaN (not read this tick) as its last reading.
func (x *Exporter) countersOf(s *timeline.Sample) []timeline.Metric {
	var out []timeline.Metric
	for i, k := range s.Columns.Keys() {
		if _, ok := gpuCounters[k.Name]; !ok {
			continue
		}
		m := s.Metric(i)
		if math.IsNaN(m.Value) {
			if v, ok := x.counters[m.Key]; ok {
				m.Value = v
			}
		} else {
			x.counters[m.Key] = m.Value
		}
		out = append(out, m)
	}
	return out
}

// buildSnapshot makes the metrics of one sample. A value that is NaN
// (unknown this tick) or absent (not supported) makes no series: never a 0.
func buildSnapshot(in *snapshotInput) *snapshot {
	snap := &snapshot{metrics: make([]prometheus.Metric, 0, 16*len(in.info.GPUs)+16)}
	add := func(desc *prometheus.Desc, kind prometheus.ValueType, v float64, labels ...string) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		for i, l := range labels {
			labels[i] = strings.ToValidUTF8(l, "\uFFFD")
		}
		if m, err := prometheus.NewConstMetric(desc, kind, v, labels...); err == nil {
			snap.metrics = append(snap.metrics, m)
		}
	}

	labels := gpuLabelsOf(in.info)
	labels.owners = ownerValues(in.owners)
	// Each GPU's labels made once, not once a series: a GPU has some
	// thirty. NewConstMetric copies them into its label pairs.
	made := make(map[int]gpuLabelValues, len(in.info.GPUs))
	labelsOf := func(idx int) gpuLabelValues {
		l, ok := made[idx]
		if !ok {
			l = labels.of(idx)
			if l.owner != nil {
				// The owner's labels after the others, as descFor's
				// description of the GPU names them.
				l.values = slices.Concat(l.values, l.owner)
			}
			made[idx] = l
		}
		return l
	}
	// addGPU adds a GPU's value of key under series, scaled.
	addGPU := func(series gpuSeries, key timeline.Key, v float64) {
		if idx, ok := timeline.ParseGPUDevice(key.Device); ok {
			if l := labelsOf(idx); !l.skip {
				add(series.descFor(l), series.kind, v*series.scale, l.values...)
			}
		}
	}
	for _, v := range in.values {
		switch series, ok := gpuGauges[v.Key.Name]; {
		case ok:
			addGPU(series, v.Key, v.Value)
		case v.Key == timeline.Key{Name: timeline.SampleLag, Device: timeline.SelfDevice}:
			add(sampleLagDesc, prometheus.GaugeValue, v.Value)
		case v.Key == timeline.Key{Name: timeline.SampleOverruns, Device: timeline.SelfDevice}:
			add(overrunsDesc, prometheus.CounterValue, v.Value)
		}
	}
	addNVLink(in.values, labels, add)
	for _, m := range in.counters {
		if series, ok := gpuCounters[m.Key.Name]; ok {
			addGPU(series, m.Key, m.Value)
		}
	}

	for _, idx := range in.lost {
		// A MIG instance is a slice of its GPU, lost with it: the GPU's
		// series says so.
		if l := labels.of(idx); !l.mig {
			add(lostDesc, prometheus.GaugeValue, 1, l.values...)
		}
	}

	add(infoDesc, prometheus.GaugeValue, 1, in.version, in.info.Kind.String(), in.info.Scenario,
		in.info.Driver, in.info.CUDA, in.info.Host)
	add(lastSampleDesc, prometheus.GaugeValue, unixSeconds(in.at))

	addHints(in.hintSeries, add)
	if in.hasPhase {
		for _, k := range phaseKinds {
			v := 0.0
			if k == in.phase {
				v = 1
			}
			add(phaseDesc, prometheus.GaugeValue, v, k.String())
		}
	}
	if in.hasMarker {
		add(markerDesc, prometheus.GaugeValue, unixSeconds(in.marker.At), in.marker.Text)
	}
	if in.job != nil {
		in.job.add(add)
	}
	return snap
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// gpuLabelSet gives each GPU's label values, from the source's description.
type gpuLabelSet struct {
	host  string
	byIdx map[int]timeline.GPUInfo
	// twin marks a MIG compute instance whose GPU instance another one
	// listed before it shares: dcgm-exporter's series are per GPU instance,
	// and so are NVML's memory and GPM figures, so it adds nothing.
	twin map[int]bool
	// owners are the ownerLabels' values of each allocated GPU.
	owners map[int][]string
}

// gpuLabelValues is one GPU's labels, in gpuLabels' order or, for a MIG
// instance, in migLabels'.
type gpuLabelValues struct {
	values []string
	mig    bool
	skip   bool     // a twin: exported as the first of its GPU instance
	owner  []string // ownerLabels' values; nil where no one holds the GPU
}

// ownerValues gives each allocated GPU its ownerLabels' values. A GPU
// shared by several owners (time-slicing, Slurm's sharding) keeps one
// series, each label the owners' distinct values joined by commas in
// order: one series per owner would count the GPU once for each in a sum.
func ownerValues(owners []timeline.Owner) map[int][]string {
	if len(owners) == 0 {
		return nil
	}
	byGPU := map[int][4][]string{}
	for _, o := range owners {
		v := byGPU[o.GPU]
		for i, f := range [4]string{o.Pod, o.Namespace, o.Container, o.Job} {
			if f != "" && !slices.Contains(v[i], f) {
				v[i] = append(v[i], f)
			}
		}
		byGPU[o.GPU] = v
	}
	out := make(map[int][]string, len(byGPU))
	for gpu, v := range byGPU {
		vals := make([]string, len(v))
		for i, fs := range v {
			slices.Sort(fs)
			vals[i] = strings.Join(fs, ",")
		}
		out[gpu] = vals
	}
	return out
}

func gpuLabelsOf(info timeline.SourceInfo) gpuLabelSet {
	set := gpuLabelSet{host: info.Host, byIdx: make(map[int]timeline.GPUInfo, len(info.GPUs))}
	seen := map[[2]int]bool{}
	for _, g := range info.GPUs {
		set.byIdx[g.Index] = g
		if g.IsMIGInstance() {
			k := [2]int{g.MIGParent, g.MIGGPUInstance}
			if seen[k] {
				if set.twin == nil {
					set.twin = map[int]bool{}
				}
				set.twin[g.Index] = true
			}
			seen[k] = true
		}
	}
	return set
}

// of returns the labels of GPU idx. dcgm-exporter's device is
// nvidia<minor number>; gputop does not read the minor number, and gives
// the NVML index, which is the same on most machines (docs/metrics.md says
// so). A MIG instance has its parent's labels, and its own profile and GPU
// instance id.
func (s gpuLabelSet) of(idx int) gpuLabelValues {
	g := s.byIdx[idx]
	if g.IsMIGInstance() {
		p, ok := s.byIdx[g.MIGParent]
		if !ok {
			p = timeline.GPUInfo{Index: g.MIGParent, PCIBusID: g.PCIBusID}
		}
		i := strconv.Itoa(p.Index)
		return gpuLabelValues{mig: true, skip: s.twin[idx], owner: s.owners[idx], values: []string{i, p.UUID, p.PCIBusID, "nvidia" + i, p.Name,
			g.MIGProfile, strconv.Itoa(g.MIGGPUInstance), s.host}}
	}
	i := strconv.Itoa(idx)
	return gpuLabelValues{owner: s.owners[idx], values: []string{i, g.UUID, g.PCIBusID, "nvidia" + i, g.Name, s.host}}
}
