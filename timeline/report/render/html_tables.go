package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gputop-dev/gputop/timeline/report"
)

// The HTML report's tables: the text report's sections, the same rows
// (repPhaseRows, repProcessRows, repEpisodes pick them for every form).

func (r *doc) htmlHosts(h htmlWriter) {
	if !r.multiHost() {
		return
	}
	h.raw("<section>\n<h2>Hosts</h2>\n")
	num := []bool{false, true, true, true, true, true, true, false}
	h.head(num, "host", "GPUs", "util mean", "lowest", "power", "memory peak", "CPU mean", "worst hint")
	for _, s := range r.Hosts {
		h.row(num, s.Name, strconv.Itoa(len(s.GPUs)), repPct(s.UtilMean), r.repLowest(s), report.HostPower(s.PowerMean),
			repBytesOf(s.MemUsedMax, s.MemTotal), repPct(s.CPU.Mean), repHostHint(s))
	}
	h.raw("</tbody></table>\n")
	h.raw(`<p class="legend">Util: mean of the host's GPUs; lowest: its GPU with the lowest mean; power: its GPUs together; memory peak: its fullest GPU.</p>` + "\n")
	h.raw("</section>\n")
}

func (r *doc) htmlGPUs(h htmlWriter) {
	h.raw("<section>\n<h2>GPUs</h2>\n")
	if len(r.GPUs) == 0 {
		h.raw("<p>None.</p>\n</section>\n")
		return
	}
	has := r.repGPUHas()
	cells, num := has.columns()
	h.head(num, cells...)
	for k, g := range r.GPUs {
		if head := r.hostHeading(k); head != "" {
			h.f(`<tr class="group"><th colspan="%d">%s</th></tr>`+"\n", len(cells), svgEsc(head))
		}
		name := repGPULabel(g)
		if g.Lost {
			name += " (lost at " + repAt(g.LostAt) + ")"
		}
		h.row(num, has.cells(g, name)...)
	}
	h.raw("</tbody></table>\n")
	h.f(`<p class="legend">%s</p>`+"\n</section>\n", svgEsc(r.gpuLegend(has)))
}

func (r *doc) htmlHealth(h htmlWriter) {
	all := r.healthFindings()
	if len(all) == 0 {
		return
	}
	h.raw("<section>\n<h2>Health</h2>\n<p class=\"legend\">Links, errors and clocks held back (NVML's violation counters).</p>\n")
	h.head(nil, "GPU", "finding")
	for _, g := range all {
		h.row(nil, r.gpuNames().One(g.gpu), strings.Join(g.findings, "; "))
	}
	h.raw("</tbody></table>\n</section>\n")
}

func (r *doc) htmlHost(h htmlWriter) {
	host := r.Host
	if !hostRecorded(host) && r.multiHost() {
		return
	}
	h.raw("<section>\n<h2>Host</h2>\n")
	if !hostRecorded(host) {
		h.f("<p>%s.</p>\n</section>\n", svgEsc(repCapital(r.repHostAbsent())))
		return
	}
	num := []bool{false, true, true, true, true}
	h.head(num, "", "mean", "p50", "p95", "max")
	row := func(name string, s report.ReportStats) {
		h.row(num, name, repPct(s.Mean), repPct(s.P50), repPct(s.P95), repPct(s.Max))
	}
	row("CPU"+repCores(host), host.CPU)
	row("iowait", host.IOWait)
	if !host.JobCPU.Mean.Unknown() {
		row("job CPU (of one core)", host.JobCPU)
	}
	h.raw("</tbody></table>\n")
	line := fmt.Sprintf("RAM peak %s; swap peak %s", repBytesOf(host.RAMUsedMax, host.RAMTotal), repBytes(host.SwapUsedMax))
	if !host.JobCPU.Mean.Unknown() {
		line += "; job RSS peak " + repBytes(host.JobRSSMax)
	}
	h.f("<p>%s.</p>\n</section>\n", svgEsc(line))
}

func (r *doc) htmlPhases(h htmlWriter) {
	h.raw("<section>\n<h2>Phases</h2>\n")
	h.f("<p>%s.</p>\n", svgEsc(r.repPhaseTotals()))
	auto, marked := r.repSplitPhases()
	for i, ps := range [][]report.ReportPhase{auto, marked} {
		if len(ps) == 0 {
			continue
		}
		h.f("<h3>%s</h3>\n", [...]string{"Automatic phases", "Marked phases, named by the markers"}[i])
		sm, cpu := repPhaseHas(ps)
		cells := []string{"start", "length", "kind", "util", "SM", "worst GPU", "host CPU", "label"}
		num := []bool{true, true, false, true, true, false, true, false}
		num = phaseCols(num, sm, cpu)
		h.head(num, phaseCols(cells, sm, cpu)...)
		shown, rest := r.repPhaseRows(ps)
		for _, p := range shown {
			h.row(num, phaseCols([]string{repAt(p.Start), repDur(p.Duration.Duration()), p.Kind, repPct(p.UtilMean),
				repPct(p.SMActiveMean), r.repWorstName(p), repPct(p.HostCPUMean), p.Label}, sm, cpu)...)
		}
		h.raw("</tbody></table>\n")
		if rest != "" {
			h.f(`<p class="legend">%s.</p>`+"\n", svgEsc(repCapital(rest)))
		}
	}
	h.raw("</section>\n")
}

func (r *doc) htmlMarkers(h htmlWriter) {
	if len(r.Markers) == 0 {
		return
	}
	h.raw("<section>\n<h2>Markers</h2>\n")
	num := []bool{true, false, false}
	h.head(num, "at", "text", "origin")
	for _, m := range r.Markers {
		h.row(num, repAt(m.At), m.Text, m.Origin)
	}
	h.raw("</tbody></table>\n</section>\n")
}

func (r *doc) htmlProcesses(h htmlWriter) {
	if len(r.Processes) == 0 {
		return
	}
	h.raw("<section>\n<h2>Processes</h2>\n")
	num := []bool{true, true, false, false, true, false, false}
	h.head(num, "GPU", "PID", "user", "lifetime", "peak GPU memory", "container, pod or job", "command")
	rows, rest := r.repProcessRows()
	for _, q := range rows {
		w := q.Workload.Workload()
		h.row(num, r.processGPU(q.GPU), strconv.Itoa(q.PID), q.User, lifetime(q), repBytes(q.PeakGPUMem), w.String(), q.Command)
	}
	h.raw("</tbody></table>\n")
	if rest != "" {
		h.f(`<p class="legend">%s.</p>`+"\n", svgEsc(repCapital(rest)))
	}
	h.raw("</section>\n")
}

func (r *doc) htmlGaps(h htmlWriter) {
	if len(r.Gaps) == 0 {
		return
	}
	h.f("<section>\n<h2>Gaps</h2>\n<p>%s</p>\n</section>\n", svgEsc(r.repGapSentence()))
}

// htmlStyle is the page's CSS: GitHub-like, dark or light as the reader
// prefers, and black on white on paper, where each section keeps together.
const htmlStyle = `:root{--bg:#fff;--fg:#1f2328;--mut:#656d76;--line:#d0d7de;--card:#f6f8fa;--critical:#cf222e;--warning:#9a6700;--info:#0969da;--ok:#1a7f37;
--util:#0969da;--sm:#8250df;--power:#bc4c00;--mem:#1a7f37;--busy:#2da44e;--stalled:#d4a72c;--idle:#afb8c1}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--mut:#8d96a0;--line:#30363d;--card:#161b22;--critical:#f85149;--warning:#d29922;--info:#4493f8;--ok:#3fb950;
--util:#4493f8;--sm:#ab7df8;--power:#f0883e;--mem:#3fb950;--busy:#238636;--stalled:#bb8009;--idle:#484f58}}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1040px;margin:0 auto;padding:16px}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}h3{font-size:15px;margin:12px 0 4px}
.sub,.legend,footer{color:var(--mut)}.legend{font-size:12px}footer{margin-top:32px;font-size:12px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--card);padding:1px 4px;border-radius:4px}
.summary{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 16px;margin-top:16px}
.verdict{font-size:16px;font-weight:600}.verdict.critical{color:var(--critical)}.verdict.warning{color:var(--warning)}.verdict.info{color:var(--info)}.verdict.ok{color:var(--ok)}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:8px 0}dt{color:var(--mut)}dd{margin:0}
.hint{border:1px solid var(--line);border-left:4px solid var(--info);border-radius:6px;padding:4px 12px;margin:8px 0}
.hint.critical{border-left-color:var(--critical)}.hint.warning{border-left-color:var(--warning)}
.hint p{margin:4px 0}.hint ul{margin:4px 0;font-size:13px}
.sev{text-transform:uppercase;font-size:12px;font-weight:700;letter-spacing:.04em}.critical .sev{color:var(--critical)}.warning .sev{color:var(--warning)}.info .sev{color:var(--info)}
.tl{overflow-x:auto}.tl svg{max-width:100%;height:auto}
table{border-collapse:collapse;margin:8px 0;font-size:13px;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;overflow-wrap:anywhere}th{background:var(--card)}.n{text-align:right}
tr.group th{text-align:left;background:var(--bg);font-weight:700}
.k{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;border-radius:2px;vertical-align:middle}
.k.util{background:var(--util)}.k.sm{background:var(--sm)}.k.power{background:var(--power)}.k.mem{background:var(--mem)}
.k.busy{background:var(--busy)}.k.stalled{background:var(--stalled)}.k.idle{background:var(--idle)}
.k.critical{background:var(--critical)}.k.warning{background:var(--warning)}.k.info{background:var(--info)}
@media print{:root{--bg:#fff;--fg:#000;--mut:#444;--line:#bbb;--card:#f3f3f3}main{max-width:none;padding:0}
section,.hint,tr{break-inside:avoid}.tl{overflow:visible}h2{break-after:avoid}}`

// PageStyle is the report page's CSS, for the other pages gputop writes
// (`gputop diff --format html`), so that they read alike.
const PageStyle = htmlStyle
