package report

import (
	"cmp"
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
	at := func(g ReportGPU) int {
		if p, ok := pos[g.Host]; ok {
			return p
		}
		return len(pos)
	}
	slices.SortStableFunc(b.r.GPUs, func(x, y ReportGPU) int {
		return cmp.Or(cmp.Compare(at(x), at(y)), cmp.Compare(x.Index, y.Index))
	})
	groups := timeline.GroupByHost(b.info)
	for k, name := range groups.Names {
		sum := ReportHostSummary{Name: name, GPUs: []int{}, Notes: []string{}}
		if k < len(b.info.Hosts) {
			h := b.info.Hosts[k]
			sum.Driver, sum.CUDA, sum.Notes = h.Driver, h.CUDA, append(sum.Notes, h.Notes...)
		}
		var gpus []ReportGPU
		for _, g := range b.r.GPUs {
			if g.Host == name {
				sum.GPUs, gpus = append(sum.GPUs, g.Index), append(gpus, g)
			}
		}
		fig := SumGPUs(gpus)
		sum.UtilMean, sum.UtilLowest = Number(fig.UtilMean), Number(fig.UtilLowest)
		if fig.LowestGPU >= 0 {
			sum.LowestGPU = &fig.LowestGPU
		}
		sum.SMActiveMean, sum.PowerMean, sum.Energy = Number(fig.SMActiveMean), Number(fig.Power), Number(fig.Energy)
		sum.MemUsedMax, sum.MemTotal = Number(fig.MemPeak), Number(fig.MemPeakTotal)
		sum.CPU = b.stats(b.load(0, timeline.HostCPU, timeline.DeviceOnHost(timeline.HostDevice, name)))
		for _, hint := range b.r.Hints {
			if slices.ContainsFunc(hint.GPUs, func(i int) bool { return slices.Contains(sum.GPUs, i) }) {
				sum.WorstHint = &ReportHostHint{ID: hint.ID, Severity: hint.Severity}
				break
			}
		}
		b.r.Hosts = append(b.r.Hosts, sum)
	}
}

// SumGPUs sums GPUs' figures over the report as a host's are summed
// (timeline.SumHost): a host's in the hosts section, every GPU's in the
// page's summary and in a diff.
func SumGPUs(gpus []ReportGPU) timeline.HostFigures {
	figs := make([]timeline.GPUFigures, len(gpus))
	for i, g := range gpus {
		figs[i] = timeline.GPUFigures{Index: g.Index, Util: float64(g.Util.Mean), SMActive: float64(g.SMActive.Mean),
			Power: float64(g.PowerMean), Energy: float64(g.Energy), MemUsed: float64(g.MemUsedMax), MemTotal: float64(g.MemTotal)}
	}
	return timeline.SumHost(figs)
}

// HostPower is a host's GPUs' draw together: "4880W", "12.3kW".
func HostPower(n Number) string {
	if n.Unknown() || float64(n) < 10000 {
		return units.Watts(float64(n))
	}
	return units.Number(float64(n)/1000) + "kW"
}
