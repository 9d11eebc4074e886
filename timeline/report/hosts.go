package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/units"
)

// ReportHostSummary is one host of a session of several (a Prometheus
// import of a cluster, `gputop --hosts`) over the whole session: what the
// hosts section says of it, one line each, before the GPUs.
type ReportHostSummary struct {
	Name   string `json:"name"`
	Driver string `json:"driver"`
	CUDA   string `json:"cuda"`
	// GPUs are the session-wide indexes of its GPUs (each GPU's host_index
	// is the number its host gives it).
	GPUs []int `json:"gpus"`
	// UtilMean is the mean of its GPUs' mean utilisation; UtilLowest the
	// lowest of them, that of LowestGPU (a session-wide index; null with
	// no data).
	UtilMean     Number `json:"util_mean"`
	UtilLowest   Number `json:"util_lowest"`
	LowestGPU    *int   `json:"lowest_gpu"`
	SMActiveMean Number `json:"sm_active_mean"`
	// PowerMean is its GPUs' mean draw together, Energy theirs together.
	PowerMean Number `json:"power_mean_w"`
	Energy    Number `json:"energy_j"`
	// MemUsedMax is the highest peak of any of its GPUs, MemTotal that GPU's
	// memory: the fullest GPU, which runs out first.
	MemUsedMax Number `json:"mem_used_max_bytes"`
	MemTotal   Number `json:"mem_total_bytes"`
	// CPU is the host's CPU (% of all cores), where it was recorded.
	CPU ReportStats `json:"cpu"`
	// WorstHint is the first hint (worst first) that names any of its GPUs;
	// null for none.
	WorstHint *ReportHostHint `json:"worst_hint"`
	// Notes say what could not be sampled on this host.
	Notes []string `json:"notes"`
}

// ReportHostHint names a hint of a host: its id and severity.
type ReportHostHint struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
}

// hosts summarises each host of a session of several, from its GPUs'
// figures and the hints; in a session of one it does nothing, and the
// report reads as it always has.
func (b *repBuilder) hosts(a Analysis) {
	if !b.info.MultiHost() {
		return
	}
	b.takeHints(a)
	pos := map[string]int{}
	for k, h := range b.info.Hosts {
		pos[h.Name] = k
	}
	// GPUs grouped by host, in the hosts' order, then by their own index.
	slices.SortStableFunc(b.r.GPUs, func(x, y ReportGPU) int {
		px, okx := pos[x.Host]
		py, oky := pos[y.Host]
		if !okx {
			px = len(pos)
		}
		if !oky {
			py = len(pos)
		}
		return cmp.Or(cmp.Compare(px, py), cmp.Compare(x.Index, y.Index))
	})
	groups := timeline.GroupByHost(b.info)
	for k, name := range groups.Names {
		sum := ReportHostSummary{Name: name, GPUs: []int{}}
		if k < len(b.info.Hosts) {
			h := b.info.Hosts[k]
			sum.Driver, sum.CUDA, sum.Notes = h.Driver, h.CUDA, append([]string{}, h.Notes...)
		}
		var gpus []timeline.GPUFigures
		for _, g := range b.r.GPUs {
			if g.Host != name {
				continue
			}
			sum.GPUs = append(sum.GPUs, g.Index)
			gpus = append(gpus, timeline.GPUFigures{Index: g.Index, Util: float64(g.Util.Mean),
				SMActive: float64(g.SMActive.Mean), Power: float64(g.PowerMean), Energy: float64(g.Energy),
				MemUsed: float64(g.MemUsedMax), MemTotal: float64(g.MemTotal)})
		}
		fig := timeline.SumHost(gpus)
		sum.UtilMean, sum.UtilLowest = Number(fig.UtilMean), Number(fig.UtilLowest)
		if fig.LowestGPU >= 0 {
			sum.LowestGPU = &fig.LowestGPU
		}
		sum.SMActiveMean, sum.PowerMean, sum.Energy = Number(fig.SMActiveMean), Number(fig.Power), Number(fig.Energy)
		sum.MemUsedMax, sum.MemTotal = Number(fig.MemPeak), Number(fig.MemPeakTotal)
		if sum.Notes == nil {
			sum.Notes = []string{}
		}
		cpu := b.load(0, timeline.HostCPU, timeline.DeviceOnHost(timeline.HostDevice, name))
		sum.CPU = cpu.stats(0, len(cpu.v))
		for _, hint := range b.r.Hints {
			if slices.ContainsFunc(hint.GPUs, func(i int) bool { return slices.Contains(sum.GPUs, i) }) {
				sum.WorstHint = &ReportHostHint{ID: hint.ID, Severity: hint.Severity}
				break
			}
		}
		b.r.Hosts = append(b.r.Hosts, sum)
	}
}

// gpuNames names the report's GPUs as hints do: "GPU3" in a session of one
// host, "node3 GPU2" in a session of several. It reads the GPUs' host
// fields, so a report read back from its JSON names them alike.
func (r *Report) gpuNames() units.GPUNames {
	if r.names == nil {
		at := map[int]units.HostGPU{}
		for _, g := range r.GPUs {
			if g.Host != "" && g.HostIndex != nil {
				at[g.Index] = units.HostGPU{Host: g.Host, Index: *g.HostIndex}
			}
		}
		mig := map[int]units.MIGSlice{}
		for _, g := range r.GPUs {
			if g.MIGProfile != "" && g.MIGParent != nil {
				mig[g.Index] = units.MIGSlice{Parent: *g.MIGParent, Profile: g.MIGProfile}
			}
		}
		n := units.NewGPUNames(at).WithMIG(mig)
		r.names = &n
	}
	return *r.names
}

// multiHost says whether the report is of a session of several hosts.
func (r *Report) multiHost() bool { return len(r.Hosts) > 0 }

// repHostHint is a host's worst hint: "critical host-idle", or "none".
func repHostHint(h ReportHostSummary) string {
	if h.WorstHint == nil {
		return "none"
	}
	return h.WorstHint.Severity + " " + h.WorstHint.ID
}

// repLowest is a host's lowest GPU: "12% GPU3" (its host's number), or N/A.
func (r *Report) repLowest(h ReportHostSummary) string {
	if h.LowestGPU == nil {
		return repNA
	}
	name := "GPU" + fmt.Sprint(*h.LowestGPU)
	if at, ok := r.gpuNames().Where(*h.LowestGPU); ok {
		name = "GPU" + fmt.Sprint(at.Index)
	}
	return repPct(h.UtilLowest) + " " + name
}

// HostPower is a host's GPUs' draw together: "4880W", "12.3kW".
func HostPower(n Number) string {
	if repUnknown(n) || float64(n) < 10000 {
		return units.Watts(float64(n))
	}
	return units.Number(float64(n)/1000) + "kW"
}

// textHosts writes the hosts section: one line per host.
func (r *Report) textHosts(t repText) {
	if !r.multiHost() {
		return
	}
	t.line("")
	gpus := 0
	for _, h := range r.Hosts {
		gpus += len(h.GPUs)
	}
	t.line("HOSTS  " + units.Count(len(r.Hosts), "host") + ", " + units.Count(gpus, "GPU"))
	// 12 columns keep the line in 80 with the longest hint
	// ("critical straggler-host"); a longer name keeps its ends.
	width := 4
	for _, h := range r.Hosts {
		width = max(width, min(12, len([]rune(repClean(h.Name)))))
	}
	row := func(name, n, util, low, power, mem, hint string) {
		t.line(fmt.Sprintf("%-*s %4s %5s %-9s %7s %-14s %s", width, name, n, util, low, power, mem, hint))
	}
	row("HOST", "GPUS", "UTIL", "LOWEST", "POWER", "MEMORY PEAK", "WORST HINT")
	for _, h := range r.Hosts {
		row(repTruncMiddle(repClean(h.Name), width), fmt.Sprint(len(h.GPUs)), repPct(h.UtilMean), r.repLowest(h),
			HostPower(h.PowerMean), repBytesOf(h.MemUsedMax, h.MemTotal), repHostHint(h))
	}
	t.wrapped("", "UTIL: mean of the host's GPUs; LOWEST: its GPU with the lowest mean; POWER: its GPUs together; "+
		"MEMORY PEAK: its fullest GPU.")
}

// mdHosts writes the hosts section as a table.
func (r *Report) mdHosts(p func(string, ...any)) {
	if !r.multiHost() {
		return
	}
	p("")
	p("### Hosts")
	p("")
	p("| host | GPUs | util mean | lowest | power | memory peak | CPU mean | worst hint |")
	p("|---|---:|---:|---:|---:|---:|---:|---|")
	for _, h := range r.Hosts {
		p("| %s | %d | %s | %s | %s | %s | %s | %s |", repMD(h.Name), len(h.GPUs), repPct(h.UtilMean), r.repLowest(h),
			HostPower(h.PowerMean), repBytesOf(h.MemUsedMax, h.MemTotal), repPct(h.CPU.Mean), repMD(repHostHint(h)))
	}
	p("")
	p("Util: mean of the host's GPUs; lowest: its GPU with the lowest mean; power: its GPUs together; memory peak: its fullest GPU.")
}

// repGPUIndex is a GPU's number in a table: its host's number for it in a
// session of several (the table is grouped by host), else its index.
func repGPUIndex(g ReportGPU) int {
	if g.HostIndex != nil {
		return *g.HostIndex
	}
	return g.Index
}

// hostHeading is the line that opens a host's GPUs in the text tables, or
// "" where the previous GPU was on the same host (or there are no hosts).
func (r *Report) hostHeading(k int) string {
	if !r.multiHost() || (k > 0 && r.GPUs[k-1].Host == r.GPUs[k].Host) {
		return ""
	}
	g := r.GPUs[k]
	if g.Host == "" {
		return "(no host)"
	}
	n := 0
	for _, o := range r.GPUs {
		if o.Host == g.Host {
			n++
		}
	}
	return repClean(g.Host) + " (" + units.Count(n, "GPU") + ")"
}

// repWorstName is a phase's worst GPU, named as the hints name it.
func (r *Report) repWorstName(p ReportPhase) string {
	if p.WorstGPU == nil {
		return ""
	}
	if !r.multiHost() {
		return repWorst(p)
	}
	return r.gpuNames().One(*p.WorstGPU) + " " + repPct(p.WorstUtilMean)
}

// repWorstWidth is the width of a phase table's WORST GPU column: 9, or
// the longest name in a session of several hosts.
func (r *Report) repWorstWidth(ps []ReportPhase) int {
	w := 9
	if r.multiHost() {
		for _, p := range ps {
			w = max(w, len(r.repWorstName(p)))
		}
	}
	return w
}

// repTruncMiddle shortens s to at most n runes by cutting its middle, so
// that hosts named alike keep what tells them apart: "gpu-...-0017".
func repTruncMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 3 {
		return string(r[:n])
	}
	head := (n - 3) / 2
	tail := n - 3 - head
	return string(r[:head]) + "..." + string(r[len(r)-tail:])
}
