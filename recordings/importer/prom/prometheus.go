package prom

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Prometheus is the format name of an import from Prometheus, by its HTTP
// API or from saved answers of it.
const Prometheus importer.Format = "prometheus"

// promMetric is a series gputop reads, and how its value becomes gputop's.
type promMetric struct {
	series string // the exported name: dcgm-exporter's, or gputop serve's
	metric string // gputop's raw metric
	kind   timeline.Kind
	scale  float64 // gputop's value = exported × scale
}

// promRead are the metrics an import reads, in the order a sample lists a
// GPU's metrics.
var promRead = []string{
	timeline.GPUUtil, timeline.GPUUtilMin, timeline.GPUUtilMax, timeline.GPUMemUtil,
	timeline.GPUSMActive, timeline.GPUSMOccupancy, timeline.GPUTensor, timeline.GPUDRAMBW,
	timeline.GPUMemUsed, timeline.GPUMemTotal, timeline.GPUPower, timeline.GPUPowerLimit,
	timeline.GPUTemp, timeline.GPUClockSM, timeline.GPUClockMem, timeline.GPUThrottle,
	timeline.GPUPCIeTx, timeline.GPUPCIeRx,
	// mJ since driver load; gputop keeps joules, and derives the mean
	// power between samples from it, which a 15 s step's point reading
	// of POWER_USAGE is not.
	timeline.GPUEnergy,
	// Read only to make gpu.mem_total where FB_TOTAL is not exported
	// (dcgm-exporter's default list has USED and FREE, not TOTAL).
	timeline.GPUMemFree,
	// The links and health (promhealth.go), as the live probe records
	// them: the report's HEALTH and the analysis' gpu-error and
	// link-degraded read them.
	timeline.GPUXid, timeline.GPUPCIeGen, timeline.GPUPCIeGenMax, timeline.GPUPCIeWidth, timeline.GPUPCIeWidthMax,
	timeline.GPUPCIeReplays, timeline.GPUECCCorrected, timeline.GPUECCUncorrected, timeline.GPUECCCorrectedAgg,
	timeline.GPUECCUncorrectedAgg, timeline.GPURetiredPages, timeline.GPURemappedRows, timeline.GPUNVLinkErrors,
	timeline.GPUNVLinkTx, timeline.GPUNVLinkRx,
	timeline.GPUViolPowerSecs, timeline.GPUViolThermalSecs, timeline.GPUViolSyncBoostSecs,
	timeline.GPUViolBoardLimitSecs, timeline.GPUViolLowUtilSecs, timeline.GPUViolReliabilitySecs,
}

// promMetrics are the GPU series read, in promRead's order: their names,
// units and kinds are the catalogue's Prometheus column
// (timeline.SeriesOf), the one table gputop serve exports by, read back.
var promMetrics = func() []promMetric {
	out := make([]promMetric, 0, len(promRead))
	for _, name := range promRead {
		s, ok := timeline.SeriesOf(name)
		if !ok {
			panic("prom: the catalogue has no series for " + name)
		}
		pm := promMetric{series: s.Name, metric: name, kind: timeline.Gauge, scale: 1 / s.Scale}
		if s.Raw {
			pm.kind = timeline.Counter
		}
		if name == timeline.GPUMemFree {
			pm.metric = "" // a part of mem_total, not kept
		}
		out = append(out, pm)
	}
	// gputop serve's series that become something else than a metric of
	// their name (promhealth.go): metric "", kept apart by Each.
	for _, name := range []string{promLostSeries, promLinksSeries, promLinksDownSeries} {
		out = append(out, promMetric{series: name, kind: timeline.Gauge, scale: 1})
	}
	return out
}()

// Fields of promMetrics the assembly treats specially.
var (
	promFBUsed    = promIndex("DCGM_FI_DEV_FB_USED")
	promFBTotal   = promIndex("DCGM_FI_DEV_FB_TOTAL")
	promFBFree    = promIndex("DCGM_FI_DEV_FB_FREE")
	promThrottle  = promIndex("DCGM_FI_DEV_CLOCKS_EVENT_REASONS")
	promLimit     = promIndex("DCGM_FI_DEV_ENFORCED_POWER_LIMIT")
	promXid       = promIndex("DCGM_FI_DEV_XID_ERRORS")
	promLost      = promIndex(promLostSeries)
	promLinks     = promIndex(promLinksSeries)
	promLinksDown = promIndex(promLinksDownSeries)
	promByName    = func() map[string]int {
		m := map[string]int{
			// DCGM's older name for the same field.
			"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": promIndex("DCGM_FI_DEV_CLOCKS_EVENT_REASONS"),
		}
		for i, pm := range promMetrics {
			m[pm.series] = i
		}
		return m
	}()
)

func promIndex(series string) int {
	return slices.IndexFunc(promMetrics, func(pm promMetric) bool { return pm.series == series })
}

// SeriesNames are the series names an import asks Prometheus for, in
// the order it asks.
func SeriesNames() []string {
	names := make([]string, 0, len(promMetrics)+4)
	for _, pm := range promMetrics {
		names = append(names, pm.series)
	}
	// The per-link series: one query for each kind, not one per link.
	return append(names, promInfoSeries, promMarkerSeries, promLinkDownSeries, promLinkErrorQuery)
}

// promInfoSeries is gputop serve's description of itself: the driver and
// CUDA versions of each host, and whether it was a demo.
const promInfoSeries = "gputop_info"

// promMarkerSeries is gputop serve's last marker: its time as the value,
// its text as a label. Each distinct one becomes a marker again (only the
// last of each scrape interval reached Prometheus).
const promMarkerSeries = "gputop_last_marker_timestamp_seconds"

// promMarker is a marker found, before it is placed in a sample.
type promMarker struct {
	host, text string
	inst       string // the scraped instance, for a marker without Hostname
	at         int64  // Unix ms
}

// promGPUID names a GPU: its host and its NVML index there; for a MIG
// instance, the index of the physical GPU it is a slice of and its GPU
// instance id, as dcgm-exporter labels it (GPU_I_ID), "" for a whole GPU.
type promGPUID struct {
	host  string
	index int
	gi    string
}

// promGPU is one GPU's series, by promMetrics index.
type promGPU struct {
	id                 promGPUID
	name, uuid, pciBus string
	profile            string       // a MIG instance's GPU_I_PROFILE
	hostIndex          int          // its gpu label: its number on its host
	series             []pointTimes // by metric, then its per-link series (links)
	links              []linkSlot   // what each series past promMetrics' is
	namedLinks         uint64       // the links its per-link series name
	vals               []pointVals
	cursor             []timeCursor // assembly: the next point of each series
	// deriveTot: no FB_TOTAL series, so gpu.mem_total is FB_USED + FB_FREE.
	deriveTot bool
	// owners are who held it, from its series' labels (noteOwner).
	owners []promOwner
}

// unlabelledHost names the host of series without Hostname or instance
// labels, beside others that have them.
const unlabelledHost = "(unlabelled)"

// promHost is what gputop_info said about a host.
type promHost struct {
	driver, cuda, source, scenario string
}

// promSet gathers the series of every answer.
type promSet struct {
	gpus  map[promGPUID]*promGPU
	hosts map[string]*promHost
	// owners counts who the GPUs were noted as held by (noteOwner).
	owners int
	// What was left out, for the notes.
	noGPU, other, merged, nonFinite, badMIG int
	// notAsked are the points outside the range a query asked for.
	notAsked int
	// pastLimits are the series of GPUs past the session's bounds
	// (timeline.MaxHosts hosts, timeline.MaxGPUs GPUs); hostSeen the hosts
	// of the GPUs kept.
	pastLimits int
	hostSeen   map[string]bool
	outside    importer.RangeTally
	otherNames map[string]bool
	markers    map[promMarker]bool
	interval   time.Duration
	// The series of ALERTS (promalerts.go), by marker text; how many were
	// past maxAlertSeries; why the query of them failed, if it did.
	alerts          map[string]*promAlert
	alertSeriesLeft int
	alertsFailed    error
	// instHost names the host of each scraped instance, from its GPU
	// series: gputop serve's markers have no Hostname.
	instHost map[string]string
}

func newPromSet() *promSet {
	return &promSet{gpus: map[promGPUID]*promGPU{}, hosts: map[string]*promHost{}, otherNames: map[string]bool{},
		markers: map[promMarker]bool{}, alerts: map[string]*promAlert{}, instHost: map[string]string{}, hostSeen: map[string]bool{}}
}

// hostOf names a series' host as dcgm-exporter and gputop serve label it,
// or else by the address Prometheus scraped, without its port.
func hostOf(labels map[string]string) string {
	inst := labels["instance"]
	if h, _, err := net.SplitHostPort(inst); err == nil {
		inst = h
	}
	return importer.CleanLabel(cmp.Or(labels["Hostname"], inst))
}

// add takes an answer's series: their points now belong to the set.
func (set *promSet) add(a *promAnswer) {
	set.notAsked += a.outside
	for i := range a.Data.Result {
		r := &a.Data.Result[i]
		pts := &r.Values
		if r.Value.times.n > 0 || r.Value.skipped > 0 {
			pts = &r.Value
		}
		set.nonFinite += pts.skipped
		name := r.Metric["__name__"]
		switch name {
		case promInfoSeries:
			set.addInfo(r.Metric)
			continue
		case alertsSeries:
			set.addAlert(r.Metric, pts)
			*pts = promPoints{}
			continue
		case promMarkerSeries:
			pts.vals.each(func(v float64, _ int) {
				if len(set.markers) < maxPromMarkers && v > 0 && v < maxPromSeconds {
					set.markers[promMarker{importer.CleanLabel(r.Metric["Hostname"]), importer.CleanLabel(r.Metric["text"]),
						r.Metric["instance"], int64(math.Round(v * 1000))}] = true
				}
			})
			*pts = promPoints{}
			continue
		}
		link, isLink := linkSlotOf(name, r.Metric)
		m, ok := promByName[name]
		if !ok && !isLink {
			set.other++
			if len(set.otherNames) < 4 {
				set.otherNames[cmp.Or(importer.CleanLabel(name), "(no name)")] = true
			}
			continue
		}
		idx, err := strconv.Atoi(r.Metric["gpu"])
		if err != nil || idx < 0 || idx > importer.MaxGPUIndex {
			set.noGPU++
			continue
		}
		// GPU_I_ID names a MIG instance: a GPU of its own, a slice of GPU idx.
		gi := r.Metric["GPU_I_ID"]
		if gi != "" {
			if _, ok := labelIndex(gi, importer.MaxGPUIndex); !ok {
				set.badMIG++
				continue
			}
		}
		if isLink && gi != "" {
			// NVLink is the physical GPU's: a MIG instance has none.
			continue
		}
		if isLink {
			set.checkLinkPoints(link, pts)
		} else {
			set.checkPoints(m, pts)
		}
		id := promGPUID{hostOf(r.Metric), idx, gi}
		if !set.room(id) {
			set.pastLimits++
			continue
		}
		if inst := r.Metric["instance"]; inst != "" {
			set.instHost[inst] = id.host
		}
		g := set.gpu(id, r.Metric)
		if isLink {
			m = g.linkSeries(link)
		} else {
			set.noteOwner(g, r.Metric, &pts.times)
		}
		if gi != "" {
			g.profile = cmp.Or(g.profile, r.Metric["GPU_I_PROFILE"])
			// Its parent is a GPU of the session even if none of its own
			// series was asked for.
			set.gpu(promGPUID{id.host, idx, ""}, r.Metric)
		}
		if g.series[m].n == 0 {
			g.series[m], g.vals[m] = pts.times, pts.vals
		} else {
			g.series[m].appendTimes(&pts.times)
			g.vals[m].appendVals(&pts.vals)
		}
		*pts = promPoints{}
	}
}

// promOwner is who held a GPU, from the first to the last point (Unix ms)
// of its series that name them.
type promOwner struct {
	timeline.Owner
	from, to int64
}

// maxOwnersPerGPU bounds who one GPU is noted as held by in one import (a
// pod a minute for a busy day of notebooks is a few thousand), and
// maxImportOwners all of them: past either, more are left out.
const (
	maxOwnersPerGPU = 4096
	maxImportOwners = 1 << 16
)

// noteOwner notes who held the GPU while a series of it has points: the
// pod, namespace and container labels dcgm-exporter puts on every series of
// a GPU allocated to a pod (with --kubernetes), and its hpc_job label for a
// Slurm job, as gputop serve exports them too. The same owner seen again
// spans both.
func (set *promSet) noteOwner(g *promGPU, labels map[string]string, times *pointTimes) {
	o := timeline.Owner{Pod: importer.CleanLabel(labels["pod"]), Namespace: importer.CleanLabel(labels["namespace"]),
		Container: importer.CleanLabel(labels["container"]), Job: importer.CleanLabel(labels["hpc_job"])}
	if o == (timeline.Owner{}) || times.n == 0 {
		return
	}
	from, to := times.runs[0].start, times.runs[len(times.runs)-1].last()
	for i := range g.owners {
		if w := &g.owners[i]; w.Owner == o {
			w.from, w.to = min(w.from, from), max(w.to, to)
			return
		}
	}
	if len(g.owners) < maxOwnersPerGPU && set.owners < maxImportOwners {
		g.owners = append(g.owners, promOwner{o, from, to})
		set.owners++
	}
}

// room says whether the GPU of id is one of the session's, or can be made
// one (with its parent, for a MIG instance) within the hosts and GPUs a
// recording holds: a series of one past them is left out, a note counts
// them, and the first hosts and GPUs answered are kept.
func (set *promSet) room(id promGPUID) bool {
	if set.gpus[id] != nil {
		return true
	}
	need := 1
	if id.gi != "" && set.gpus[promGPUID{id.host, id.index, ""}] == nil {
		need = 2
	}
	if len(set.gpus)+need > timeline.MaxGPUs {
		return false
	}
	if !set.hostSeen[id.host] {
		if len(set.hostSeen) >= timeline.MaxHosts {
			return false
		}
		set.hostSeen[id.host] = true
	}
	return true
}

// gpu is the GPU of id, made at its first series. A MIG instance's labels
// are its parent's (dcgm-exporter's modelName, UUID and bus id are the
// physical GPU's): they name the parent, and the instance by its profile.
func (set *promSet) gpu(id promGPUID, labels map[string]string) *promGPU {
	g := set.gpus[id]
	if g == nil {
		g = &promGPU{id: id, hostIndex: id.index, series: make([]pointTimes, len(promMetrics)), vals: make([]pointVals, len(promMetrics))}
		set.gpus[id] = g
	}
	g.name = cmp.Or(g.name, importer.CleanLabel(labels["modelName"]))
	g.uuid = cmp.Or(g.uuid, importer.CleanLabel(labels["UUID"]))
	g.pciBus = cmp.Or(g.pciBus, importer.CleanLabel(labels["pci_bus_id"]))
	return g
}

func (set *promSet) addInfo(labels map[string]string) {
	h := set.hosts[hostOf(labels)]
	if h == nil {
		h = &promHost{}
		set.hosts[hostOf(labels)] = h
	}
	h.driver = cmp.Or(h.driver, importer.CleanLabel(labels["driver"]))
	h.cuda = cmp.Or(h.cuda, importer.CleanLabel(labels["cuda"]))
	h.source = cmp.Or(h.source, importer.CleanLabel(labels["source"]))
	h.scenario = cmp.Or(h.scenario, importer.CleanLabel(labels["scenario"]))
}

// Result is an import from Prometheus: its samples are made one at a
// time as Each writes them, so that a day of a cluster never sits in
// memory as samples.
type Result struct {
	// Info describes the import: Kind timeline.Imported, the hosts (when
	// there are several) and their GPUs numbered across the session, the
	// step and notes on what was left out.
	Info timeline.SourceInfo
	// Samples is how many samples Each writes; First and Last their times.
	Samples     int
	First, Last time.Time
	gpus        []*promGPU
	// markers are in time order, each to ride on the first sample at or
	// after its time.
	markers []timeline.Marker
	// jump is the samples left out for coming more than
	// timeline.MaxSampleGap after the one before (with all after them);
	// end is the first of them (Unix ms), or MaxInt64.
	jump timeline.Jump
	end  int64
	// wholeGPU finds a whole GPU's session number by its host and number
	// there, its id before the session numbered it (xidOfMarker).
	wholeGPU map[promGPUID]int
	// queue holds each series under the time of its next point
	// (promqueue.go).
	queue timeQueue
	// owned are the GPUs (places in gpus) whose series named who held
	// them: every sample then says who held each, as a live one does.
	owned []int
}

// maxPromMarkers bounds the markers one import keeps.
const maxPromMarkers = 100_000

// result sorts what was gathered into a recording's worth of samples.
func (set *promSet) result(origin string) (*Result, error) {
	if len(set.gpus) == 0 {
		return nil, set.nothing()
	}
	// Each host's whole GPUs, then its MIG instances, as a session
	// numbers them (after the physical GPUs), by parent and GPU instance.
	isMIG := func(g *promGPU) int { return min(len(g.id.gi), 1) } // 0 for a whole GPU, 1 for a MIG instance
	gpus := slices.SortedFunc(maps.Values(set.gpus), func(a, b *promGPU) int {
		return cmp.Or(cmp.Compare(a.id.host, b.id.host), cmp.Compare(isMIG(a), isMIG(b)),
			cmp.Compare(a.id.index, b.id.index), cmp.Compare(len(a.id.gi), len(b.id.gi)), cmp.Compare(a.id.gi, b.id.gi))
	})
	hostNames := slices.Sorted(maps.Keys(set.hostSeen))
	res := &Result{gpus: gpus, Info: timeline.SourceInfo{Kind: timeline.Imported, Origin: origin}}
	multi := len(hostNames) > 1
	if multi && hostNames[0] == "" {
		// Series with neither Hostname nor instance: a host needs a name
		// among others ("" is a session of one).
		hostNames[0] = unlabelledHost
		for _, g := range gpus {
			if g.id.host == "" {
				g.id.host = unlabelledHost
			}
		}
		set.hosts[unlabelledHost] = set.hosts[""]
	}
	for _, name := range hostNames {
		h := cmp.Or(set.hosts[name], &promHost{})
		hi := timeline.HostInfo{Name: name, Driver: h.driver, CUDA: h.cuda}
		if h.source == "demo" {
			hi.Notes = append(hi.Notes, fmt.Sprintf("%s was a gputop demo (%s), not real GPUs", cmp.Or(name, "the host"), cmp.Or(h.scenario, "training")))
		}
		if multi {
			res.Info.Hosts = append(res.Info.Hosts, hi)
		} else {
			res.Info.Host, res.Info.Driver, res.Info.CUDA = hi.Name, hi.Driver, hi.CUDA
			res.Info.Notes = append(res.Info.Notes, hi.Notes...)
		}
	}
	next := map[string]int{}     // the number a host would give its next MIG instance
	whole := map[promGPUID]int{} // a physical GPU's session index
	for i, g := range gpus {
		g.prepare(set)
		info := g.info(i)
		// A MIG instance takes the number its host would give it: after
		// the host's whole GPUs, which come before it in gpus.
		onHost := g.id.index
		if g.id.gi != "" {
			onHost = next[g.id.host]
		}
		next[g.id.host] = max(next[g.id.host], onHost+1)
		if multi {
			info.Host, info.HostIndex = g.id.host, onHost
		} else {
			// One host: its GPUs keep their own numbers, as a recording
			// made on it would.
			info.Index = onHost
		}
		if g.id.gi == "" {
			whole[g.id] = info.Index
		} else {
			parent := whole[promGPUID{g.id.host, g.id.index, ""}]
			info.MIGParent = parent
			res.Info.GPUs[slices.IndexFunc(res.Info.GPUs, func(p timeline.GPUInfo) bool { return p.Index == parent })].MIG = true
		}
		res.Info.GPUs = append(res.Info.GPUs, info)
	}
	// From here on a GPU's number is the session's: its gpuN device.
	for i, g := range gpus {
		g.id.index = res.Info.GPUs[i].Index
		if len(g.owners) > 0 {
			res.owned = append(res.owned, i)
		}
	}
	res.count()
	if res.Samples == 0 {
		return nil, set.nothing()
	}
	res.Info.Interval = set.interval
	if res.Info.Interval == 0 {
		res.Info.Interval = res.medianSpacing()
	}
	alerts, alertNotes := set.alertMarkers(res.First.UnixMilli(), res.Last.UnixMilli(), res.Info.Interval)
	res.placeMarkers(set, multi, alerts)
	res.Info.Notes = append(res.Info.Notes, set.notes(res)...)
	res.Info.Notes = append(res.Info.Notes, alertNotes...)
	return res, nil
}

// ownersAt gives s who held each GPU at t (Unix ms), where the import
// knows owners at all: a list, empty if none held any then.
func (res *Result) ownersAt(s *timeline.Sample, t int64) {
	if len(res.owned) == 0 {
		s.Owners = nil
		return
	}
	// A list of its own: unlike the metrics, a writer may keep it.
	s.Owners = make([]timeline.Owner, 0, len(s.Owners))
	for _, i := range res.owned {
		g := res.gpus[i]
		for _, o := range g.owners {
			if o.from <= t && t <= o.to {
				held := o.Owner
				held.GPU = g.id.index
				s.Owners = append(s.Owners, held)
			}
		}
	}
}

// placeMarkers keeps the markers within the samples' span, their text
// prefixed by their host's name among several, and puts them, the Xids'
// and the alerts' in time order: a sample carries those at or before its
// time.
func (res *Result) placeMarkers(set *promSet, multi bool, alerts []timeline.Marker) {
	first, last := res.First.UnixMilli(), res.Last.UnixMilli()
	found := slices.SortedFunc(maps.Keys(set.markers), func(a, b promMarker) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.host, b.host), cmp.Compare(a.text, b.text))
	})
	var xids []xidFound
	for _, m := range found {
		if m.at < first || m.at > last {
			continue // before the range: the last marker of an earlier stretch
		}
		host := set.hostOfMarker(m)
		if multi && host == "" {
			host = unlabelledHost
		}
		if gpu, code, ok := res.xidOfMarker(host, m.text); ok {
			// An Xid of gputop's probe: an event, as the live view has it.
			xids = append(xids, xidFound{at: m.at, gpu: gpu, code: code})
			continue
		}
		text := m.text
		if multi && host != "" {
			text = host + ": " + text
		}
		res.markers = append(res.markers, timeline.Marker{At: time.UnixMilli(m.at).UTC(), Text: text, Origin: "import"})
	}
	xm, notes := res.xidMarkers(xids, func(host string) bool { h := set.hosts[host]; return h != nil && h.source != "" })
	res.markers = slices.Concat(res.markers, xm, alerts)
	slices.SortStableFunc(res.markers, func(a, b timeline.Marker) int { return a.At.Compare(b.At) })
	res.Info.Notes = append(res.Info.Notes, notes...)
}

// nothing says why there is nothing to import.
func (set *promSet) nothing() error {
	if set.other > 0 {
		return fmt.Errorf("no GPU series among the %s found (such as %s): gputop reads dcgm-exporter's DCGM_FI_* series",
			units.Count(set.other, "series", "series"), strings.Join(slices.Sorted(maps.Keys(set.otherNames)), ", "))
	}
	if set.noGPU > 0 {
		return fmt.Errorf("%s without a gpu label: gputop reads dcgm-exporter's series, which name their GPU", units.Count(set.noGPU, "GPU series"))
	}
	return errNoSeries
}

// errNoSeries is an answer without a single GPU series.
var errNoSeries = fmt.Errorf("no GPU series in it")

func (set *promSet) notes(res *Result) []string {
	var out []string
	if set.merged > 0 {
		out = append(out, fmt.Sprintf("%s at a time another series of the same GPU and metric already had: kept the first (two exporters on one host?)",
			units.Count(set.merged, "point")))
	}
	if set.nonFinite > 0 {
		out = append(out, fmt.Sprintf("%s NaN or infinite: read as gaps", units.Count(set.nonFinite, "point")))
	}
	if set.notAsked > 0 {
		out = append(out, fmt.Sprintf("%s outside the range asked for left out (Prometheus answered with times before --from, after --to or between its steps)",
			units.Count(set.notAsked, "point")))
	}
	out = append(out, set.outside.Notes()...)
	if res.jump.Dropped > 0 {
		out = append(out, res.jump.String())
	}
	if set.pastLimits > 0 {
		out = append(out, fmt.Sprintf("%s of GPUs past the %d hosts or %d GPUs a recording holds left out",
			units.Count(set.pastLimits, "series", "series"), timeline.MaxHosts, timeline.MaxGPUs))
	}
	if set.badMIG > 0 {
		out = append(out, fmt.Sprintf("%s of MIG instances whose GPU_I_ID is not a number left out", units.Count(set.badMIG, "series", "series")))
	}
	if set.noGPU > 0 {
		out = append(out, fmt.Sprintf("%s without a gpu label left out", units.Count(set.noGPU, "GPU series")))
	}
	derived := 0
	for _, g := range res.gpus {
		if g.deriveTot {
			derived++
		}
	}
	if derived > 0 {
		out = append(out, fmt.Sprintf("memory total of %s is FB_USED + FB_FREE (no FB_TOTAL series): the driver's reserved memory is not in it",
			units.Count(derived, "GPU")))
	}
	return out
}

// prepare puts each series in time order, one point per time, and says
// which derived metrics the GPU has.
func (g *promGPU) prepare(set *promSet) {
	g.cursor = make([]timeCursor, len(g.series))
	for m := range g.series {
		if !g.series[m].increasing() {
			// Two series of one GPU and metric, or answers out of order.
			var dropped int
			g.series[m], g.vals[m], dropped = sortedTimes(g.series[m].all(), g.vals[m].all(0))
			set.merged += dropped
		}
	}
	g.deriveTot = g.series[promFBTotal].n == 0 && g.series[promFBUsed].n > 0 && g.series[promFBFree].n > 0
	for i, s := range g.links {
		if g.series[len(promMetrics)+i].n > 0 {
			g.namedLinks |= 1 << s.link
		}
	}
}

// info describes the GPU as the session's number i. A MIG instance is
// named as NVML names it, "<GPU> MIG 1g.10gb"; its UUID is not in the
// labels (UUID is its parent's), and its parent is the caller's to set.
func (g *promGPU) info(i int) timeline.GPUInfo {
	info := timeline.GPUInfo{Index: i, Name: g.name, UUID: g.uuid, PCIBusID: g.pciBus, MemTotal: math.NaN(), PowerLimit: math.NaN()}
	if g.id.gi != "" {
		gi, _ := strconv.Atoi(g.id.gi)
		info.MIG, info.MIGGPUInstance, info.UUID = true, gi, ""
		// Without GPU_I_PROFILE, its ids, as the probe names one whose
		// name lacks the profile.
		info.MIGProfile = cmp.Or(migProfileLabel(g.profile), "gi"+g.id.gi)
		info.Name = strings.TrimSpace(g.name + " MIG " + info.MIGProfile)
	}
	if v := &g.vals[promFBTotal]; v.n > 0 {
		info.MemTotal = v.first() * importer.MiB
	} else if g.deriveTot {
		info.MemTotal = g.derivedTotal()
	}
	if v := &g.vals[promLimit]; v.n > 0 {
		info.PowerLimit = v.first()
	}
	for m, pm := range promMetrics {
		switch pm.metric {
		case timeline.GPUSMActive, timeline.GPUSMOccupancy, timeline.GPUTensor, timeline.GPUDRAMBW:
			info.GPM = info.GPM || g.series[m].n > 0
		}
	}
	return info
}

// migProfileLabel is a GPU_I_PROFILE fit for a label on the screen:
// printable ASCII without spaces, at most 16 characters ("1c.7g.80gb+me"
// is 13); "" otherwise.
func migProfileLabel(p string) string {
	if len(p) > 16 || strings.ContainsFunc(p, func(c rune) bool { return c <= ' ' || c > '~' }) {
		return ""
	}
	return p
}

// derivedTotal is used + free at the first time both were read, or NaN.
func (g *promGPU) derivedTotal() float64 {
	used, free := &g.series[promFBUsed], &g.series[promFBFree]
	var cu, cf timeCursor
	for {
		tu, ok1 := used.at(&cu)
		tf, ok2 := free.at(&cf)
		switch {
		case !ok1 || !ok2:
			return math.NaN()
		case tu < tf:
			used.step(&cu)
		case tu > tf:
			free.step(&cf)
		default:
			return (g.vals[promFBUsed].at(&cu) + g.vals[promFBFree].at(&cf)) * importer.MiB
		}
	}
}

// count walks the samples Each will make without making them, and finds
// where a jump of more than timeline.MaxSampleGap ends them.
func (res *Result) count() {
	res.reset()
	res.end = math.MaxInt64
	for {
		t, refs, ok := res.queue.take()
		if !ok {
			break
		}
		for _, r := range refs {
			res.step(res.gpus[r.g], r)
		}
		res.queue.done(refs)
		// After the first jump, FarAfter counts every later time too.
		if res.Samples > 0 && res.jump.FarAfter(res.Last, time.UnixMilli(t)) {
			res.end = min(res.end, t)
			continue
		}
		if res.Samples == 0 {
			res.First = time.UnixMilli(t).UTC()
		}
		res.Last = time.UnixMilli(t).UTC()
		res.Samples++
	}
	res.reset()
}

// reset puts every cursor at its series' first point, and each series in
// the queue under its time.
func (res *Result) reset() {
	res.queue.reset()
	for gi, g := range res.gpus {
		clear(g.cursor)
		for m := range g.series {
			if at, ok := g.series[m].at(&g.cursor[m]); ok {
				res.queue.put(at, seriesRef{int32(gi), int32(m)})
			}
		}
	}
}

// step moves series r of GPU g past its point, into the queue under its
// next.
func (res *Result) step(g *promGPU, r seriesRef) {
	c := &g.cursor[r.m]
	g.series[r.m].step(c)
	if at, ok := g.series[r.m].at(c); ok {
		res.queue.put(at, r)
	}
}

// medianSpacing is the median time between consecutive points of the
// longest series: the interval of a file whose answers do not say it.
func (res *Result) medianSpacing() time.Duration {
	var most *pointTimes
	for _, g := range res.gpus {
		for m := range g.series {
			if most == nil || g.series[m].n > most.n {
				most = &g.series[m]
			}
		}
	}
	return time.Duration(importer.MedianGap(most.all())) * time.Millisecond
}

// Each makes the samples in time order, one per time any series has a
// point, and gives each to write; the sample and its values are reused
// for the next one. A metric without a point at that time is absent from
// the sample: a gap, never a zero.
func (res *Result) Each(write func(*timeline.Sample) error) error {
	res.reset()
	defer res.reset()
	devices := make([]string, len(res.gpus))
	// The GPUs with NVLink links named by their per-link series write the
	// links on every sample, as the live probe does, points or not.
	var linked []int32
	for i, g := range res.gpus {
		devices[i] = timeline.GPUDevice(g.id.index)
		if g.namedLinks != 0 {
			linked = append(linked, int32(i))
		}
	}
	var s timeline.Sample
	var ms []timeline.Metric
	var health gpuHealth
	marker := 0
	for {
		t, refs, ok := res.queue.take()
		if !ok || t >= res.end {
			return nil
		}
		s.At = time.UnixMilli(t).UTC()
		ms, s.Probes = ms[:0], s.Probes[:0]
		from := marker
		for marker < len(res.markers) && !res.markers[marker].At.After(s.At) {
			marker++
		}
		s.Markers = res.markers[from:marker:marker]
		res.ownersAt(&s, t)
		k, l := 0, 0
		for k < len(refs) || l < len(linked) {
			// The next GPU of this time's series or of the linked ones.
			i := int32(math.MaxInt32)
			if k < len(refs) {
				i = refs[k].g
			}
			if l < len(linked) && linked[l] <= i {
				i = linked[l]
				l++
			}
			g := res.gpus[i]
			var used, free float64
			haveUsed, haveFree := false, false
			health.reset()
			for ; k < len(refs) && refs[k].g == i; k++ {
				m := int(refs[k].m)
				v := g.vals[m].at(&g.cursor[m])
				res.step(g, refs[k])
				if health.take(g, m, v) {
					continue
				}
				pm := &promMetrics[m]
				switch m {
				case promFBFree:
					free, haveFree = v, true
					continue
				case promFBUsed:
					used, haveUsed = v, true
				case promThrottle:
					v = importer.ThrottleFromNVML(uint64(max(v, 0)))
				}
				ms = append(ms, timeline.Metric{Key: timeline.Key{Name: pm.metric, Device: devices[i]}, Kind: pm.kind, Value: v * pm.scale})
			}
			if g.deriveTot && haveUsed && haveFree {
				ms = append(ms, timeline.Metric{Key: timeline.Key{Name: timeline.GPUMemTotal, Device: devices[i]}, Kind: timeline.Gauge, Value: (used + free) * importer.MiB})
			}
			ms = health.write(&s, ms, g, devices[i])
		}
		s.Fill(ms)
		res.queue.done(refs)
		if err := write(&s); err != nil {
			return err
		}
	}
}

// Read imports saved answers of Prometheus' HTTP API: one
// query_range answer, several one after another, or a JSON array of them.
// origin names them for SourceInfo.Origin.
//
// Answers are read one at a time, each at most 64 MiB (promlimits.go); a
// file saved as UTF-16 (PowerShell's `>`) is read as such.
func Read(r io.Reader, origin string) (*Result, error) {
	text, encoding, err := importer.DecodeText(r)
	if err != nil {
		return nil, err
	}
	set := newPromSet()
	if err := decodeAnswers(text, func(a *promAnswer) error { set.add(a); return nil }); err != nil {
		return nil, err
	}
	res, err := set.result(fmt.Sprintf("%s (%s)", importer.CleanLabel(origin), Prometheus))
	if err == nil && encoding != "" {
		res.Info.Notes = append(res.Info.Notes, fmt.Sprintf("the file is %s text (a Windows tool's): read as such", encoding))
	}
	return res, err
}
