package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/units"
)

// The hosts section of a session of several, and how every form names
// GPUs and groups them by host.

// gpuNames names the report's GPUs as hints do: "GPU3" in a session of one
// host, "node3 GPU2" in a session of several. It reads the GPUs' host
// fields, so a report read back from its JSON names them alike.
func (r *doc) gpuNames() units.GPUNames {
	if r.names == nil {
		at, mig := map[int]units.HostGPU{}, map[int]units.MIGSlice{}
		for _, g := range r.GPUs {
			if g.Host != "" && g.HostIndex != nil {
				at[g.Index] = units.HostGPU{Host: g.Host, Index: *g.HostIndex}
			}
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
func (r *doc) multiHost() bool { return len(r.Hosts) > 0 }

// repHostHint is a host's worst hint: "critical host-idle", or "none".
func repHostHint(h report.ReportHostSummary) string {
	if h.WorstHint == nil {
		return "none"
	}
	return h.WorstHint.Severity + " " + h.WorstHint.ID
}

// repLowest is a host's lowest GPU: "12% GPU3" (its host's number), or N/A.
func (r *doc) repLowest(h report.ReportHostSummary) string {
	if h.LowestGPU == nil {
		return repNA
	}
	name := "GPU" + fmt.Sprint(*h.LowestGPU)
	if at, ok := r.gpuNames().Where(*h.LowestGPU); ok {
		name = "GPU" + fmt.Sprint(at.Index)
	}
	return repPct(h.UtilLowest) + " " + name
}

// textHosts writes the hosts section: one line per host.
func (r *doc) textHosts(t repText) {
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
			report.HostPower(h.PowerMean), repBytesOf(h.MemUsedMax, h.MemTotal), repHostHint(h))
	}
	t.wrapped("", "UTIL: mean of the host's GPUs; LOWEST: its GPU with the lowest mean; POWER: its GPUs together; "+
		"MEMORY PEAK: its fullest GPU.")
	// Each host's own CPU, as the markdown's column and the hints read it:
	// no column of its own, which would take the table past 80.
	var cpu []string
	for _, h := range r.Hosts {
		cpu = append(cpu, repClean(h.Name)+" "+repPct(h.CPU.Mean))
	}
	t.wrapped("", "CPU mean: "+strings.Join(cpu, ", ")+".")
}

// hosts writes the hosts section of the markdown and HTML forms as a table.
func (r *doc) hosts(f form) {
	if !r.multiHost() {
		return
	}
	f.section("Hosts")
	t := Table{Head: []string{"host", "GPUs", "util mean", "lowest", "power", "memory peak", "CPU mean", "worst hint"},
		Num: []bool{false, true, true, true, true, true, true, false}}
	for _, h := range r.Hosts {
		t.add(h.Name, strconv.Itoa(len(h.GPUs)), repPct(h.UtilMean), r.repLowest(h), report.HostPower(h.PowerMean),
			repBytesOf(h.MemUsedMax, h.MemTotal), repPct(h.CPU.Mean), repHostHint(h))
	}
	f.table(t)
	f.legend("Util: mean of the host's GPUs; lowest: its GPU with the lowest mean; power: its GPUs together; memory peak: its fullest GPU.")
	f.end()
}

// repGPUIndex is a GPU's number in a table: its host's number for it in a
// session of several (the table is grouped by host), else its index.
func repGPUIndex(g report.ReportGPU) int {
	if g.HostIndex != nil {
		return *g.HostIndex
	}
	return g.Index
}

// hostHeading is the line that opens a host's GPUs in the text tables, or
// "" where the previous GPU was on the same host (or there are no hosts).
func (r *doc) hostHeading(k int) string {
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
func (r *doc) repWorstName(p report.ReportPhase) string {
	if p.WorstGPU == nil {
		return ""
	}
	if !r.multiHost() {
		return fmt.Sprintf("GPU%d %s", *p.WorstGPU, repPct(p.WorstUtilMean))
	}
	return r.gpuNames().One(*p.WorstGPU) + " " + repPct(p.WorstUtilMean)
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
