package render

import (
	"fmt"
	"strconv"

	"github.com/gputop-dev/gputop/timeline/report"
)

// The sections the markdown and HTML reports share (form.go), in the text
// report's order; the hosts', health's, processes' and owners' are with
// the rest of their kind. Each lists the rows the text's lists
// (repPhaseRows, repProcessRows pick them for every form).

// gpus is the GPU table. In a session of several hosts, markdown names
// each GPU's host in a first column, and HTML heads each host's GPUs with
// a row, as the text does.
func (r *doc) gpus(f form) {
	f.section("GPUs")
	if len(r.GPUs) == 0 {
		f.p("None.")
		f.end()
		return
	}
	has := r.repGPUHas()
	t := Table{Head: []string{"GPU", "name", "util mean", "p50", "p95", "max"}}
	if has.sm {
		t.Head = append(t.Head, "SM mean", "p50", "p95", "max")
	}
	t.Head = append(t.Head, "idle")
	if has.mem {
		t.Head = append(t.Head, "memory peak")
	}
	if has.power {
		t.Head = append(t.Head, "power mean", "energy")
	}
	_, md := f.(mdForm)
	hostColumn := md && r.multiHost()
	if hostColumn {
		t.Head = append([]string{"host"}, t.Head...)
	}
	for _, h := range t.Head { // every column a figure but the host and the name
		t.Num = append(t.Num, h != "host" && h != "name")
	}
	for k, g := range r.GPUs {
		name := repGPULabel(g)
		if g.Lost {
			name += " (lost at " + repAt(g.LostAt) + ")"
		}
		u, s := g.Util, g.SMActive
		row := []string{strconv.Itoa(repGPUIndex(g)), name, repPct(u.Mean), repPct(u.P50), repPct(u.P95), repPct(u.Max)}
		if has.sm {
			row = append(row, repPct(s.Mean), repPct(s.P50), repPct(s.P95), repPct(s.Max))
		}
		row = append(row, repShare(g.IdleFraction))
		if has.mem {
			row = append(row, repBytesOf(g.MemUsedMax, g.MemTotal))
		}
		if has.power {
			row = append(row, repWattsOf(g.PowerMean, g.PowerLimit), repEnergy(g.Energy))
		}
		if hostColumn {
			row = append([]string{g.Host}, row...)
		} else if head := r.hostHeading(k); head != "" {
			t.heading(head)
		}
		t.add(row...)
	}
	f.table(t)
	f.legend(f.own(r.gpuLegend(has)))
	f.end()
}

func (r *doc) host(f form) {
	h := r.Host
	if !hostRecorded(h) && r.multiHost() {
		return // each host's is in the hosts section
	}
	f.section("Host")
	if !hostRecorded(h) {
		f.p(f.esc(repCapital(r.repHostAbsent())) + ".")
		f.end()
		return
	}
	t := Table{Head: []string{"", "mean", "p50", "p95", "max"}, Num: []bool{false, true, true, true, true}}
	row := func(name string, s report.ReportStats) {
		t.add(name, repPct(s.Mean), repPct(s.P50), repPct(s.P95), repPct(s.Max))
	}
	row("CPU"+repCores(h), h.CPU)
	row("iowait", h.IOWait)
	if !h.JobCPU.Mean.Unknown() {
		row("job CPU (of one core)", h.JobCPU)
	}
	f.table(t)
	line := fmt.Sprintf("RAM peak %s; swap peak %s", repBytesOf(h.RAMUsedMax, h.RAMTotal), repBytes(h.SwapUsedMax))
	if !h.JobCPU.Mean.Unknown() {
		line += "; job RSS peak " + repBytes(h.JobRSSMax)
	}
	f.p(f.own(line) + ".")
	f.end()
}

func (r *doc) phases(f form) {
	f.section("Phases")
	f.p(f.own(r.repPhaseTotals()) + ".")
	auto, marked := r.repSplitPhases()
	for i, ps := range [][]int{auto, marked} {
		if len(ps) == 0 {
			continue
		}
		f.caption([...]string{"Automatic phases", "Marked phases, named by the markers"}[i])
		sm, cpu := r.repPhaseHas(ps)
		t := Table{Head: phaseCols([]string{"start", "length", "kind", "util", "SM", "worst GPU", "host CPU", "label"}, sm, cpu),
			Num: phaseCols([]bool{true, true, false, true, true, false, true, false}, sm, cpu)}
		shown, rest := r.repPhaseRows(ps)
		for _, k := range shown {
			p := r.Phases[k]
			t.add(phaseCols([]string{repAt(p.Start), repDur(p.Duration.Duration()), p.Kind, repPct(p.UtilMean),
				repPct(p.SMActiveMean), r.repWorstName(p), repPct(p.HostCPUMean), p.Label}, sm, cpu)...)
		}
		f.table(t)
		if rest != "" {
			f.legend(f.own(repCapital(rest)) + ".")
		}
	}
	f.end()
}

func (r *doc) markers(f form) {
	if len(r.Markers) == 0 {
		return
	}
	f.section("Markers")
	t := Table{Head: []string{"at", "text", "origin"}, Num: []bool{true, false, false}}
	for _, m := range r.Markers {
		t.add(repAt(m.At), m.Text, m.Origin)
	}
	f.table(t)
	f.end()
}

func (r *doc) gaps(f form) {
	if len(r.Gaps) == 0 {
		return
	}
	f.section("Gaps")
	f.p(f.own(r.repGapSentence()))
	f.end()
}
