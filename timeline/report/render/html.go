package render

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/units"
)

// HTML writes the report as one self-contained page, to attach to a
// ticket or a pull request: the same content as Text, the summary and
// the hints with their evidence first, then the timeline of every GPU
// (SVG's drawing, inline), then the text report's tables. Inline CSS
// only: no script, no font, nothing fetched (its Content-Security-Policy
// forbids it), readable with scripts off, dark or light as the reader
// prefers, and on paper. Every text from outside (markers, host and GPU
// names, the command line, evidence) is cleaned and escaped. The report
// must have been made with ReportOptions.TimelineColumns (TimelineColumns)
// for the drawing.
func HTML(w io.Writer, rep *report.Report) error {
	r := &doc{Report: rep}
	var b bytes.Buffer
	h := htmlForm{&b}
	PageHead(&b, "gputop report: "+repSourceLine(r.Source), "; img-src data:")
	h.f(`<p class="sub">%s; %s.</p>`+"\n", svgEsc(repCapital(r.repStartLine())), svgEsc(r.repSystemLine()))
	if len(r.Source.Command) > 0 {
		h.f(`<p class="sub">Command: <code>%s</code></p>`+"\n", svgEsc(strings.Join(r.Source.Command, " ")))
	}
	r.htmlSummary(h)
	r.htmlHints(h)
	r.htmlTimeline(h)
	if len(r.Notes) > 0 {
		h.raw("<section><h2>Notes</h2>\n<ul>\n")
		for _, n := range r.Notes {
			h.f("<li>%s</li>\n", svgEsc(n))
		}
		h.raw("</ul></section>\n")
	}
	r.hosts(h)
	r.gpus(h)
	r.health(h)
	r.host(h)
	r.phases(h)
	r.markers(h)
	r.processes(h)
	r.owners(h)
	r.gaps(h)
	h.raw(`<footer>Made by <code>gputop report --format html</code>: the same report as <code>--format text</code>, drawn.</footer>` + "\n")
	h.raw("</main>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// htmlSummary is the verdict at a glance: the hints counted by severity,
// the phases' totals and the figures over every GPU.
func (r *doc) htmlSummary(h htmlForm) {
	counts := map[string]int{}
	for _, hint := range r.Hints {
		counts[hint.Severity]++
	}
	verdict, class := "No hints: nothing held the GPUs back that gputop can name.", "ok"
	if len(r.Hints) > 0 {
		var parts []string
		for _, s := range []string{"critical", "warning", "info"} {
			if counts[s] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
			}
		}
		verdict = fmt.Sprintf("%s: %s. Worst: %s.", units.Count(len(r.Hints), "hint"), strings.Join(parts, ", "),
			r.Hints[0].ID)
		class = r.Hints[0].Severity
	}
	h.raw(`<section class="summary">` + "\n")
	h.f(`<p class="verdict %s">%s</p>`+"\n", svgEsc(class), svgEsc(verdict))
	h.raw("<dl>\n")
	h.f("<dt>Phases</dt><dd>%s</dd>\n", svgEsc(r.repPhaseTotals()))
	if s := r.htmlFleet(); s != "" {
		h.f("<dt>GPUs</dt><dd>%s</dd>\n", svgEsc(s))
	}
	if len(r.Gaps) > 0 {
		h.f("<dt>Gaps</dt><dd>%s</dd>\n", svgEsc(repDur(r.repGapTotal())+" without samples, left out of every figure"))
	}
	h.raw("</dl>\n</section>\n")
}

// htmlFleet sums the GPUs up: "8 GPUs, util mean 59% (lowest GPU3 12%),
// 3.1 kWh" as far as known.
func (r *doc) htmlFleet() string {
	if len(r.GPUs) == 0 {
		return ""
	}
	// The mean of the GPUs' means, over those with one.
	fig := report.SumGPUs(r.GPUs)
	parts := []string{r.gpuNames().Split(len(r.GPUs))}
	if fig.Known > 0 {
		s := "util mean " + repPct(report.Number(fig.UtilMean))
		if fig.Known > 1 {
			s += " (lowest " + r.gpuNames().One(fig.LowestGPU) + " " + repPct(report.Number(fig.UtilLowest)) + ")"
		}
		parts = append(parts, s)
	}
	if !math.IsNaN(fig.Energy) {
		parts = append(parts, "energy "+repEnergy(report.Number(fig.Energy)))
	}
	return strings.Join(parts, ", ")
}

// htmlHints lists the hints worst first, each with its evidence, its next
// step and its largest episodes: what the text's HINTS section says.
func (r *doc) htmlHints(h htmlForm) {
	h.raw("<section>\n<h2>Hints</h2>\n")
	if len(r.Hints) == 0 {
		h.raw("<p>None.</p>\n</section>\n")
		return
	}
	for _, hint := range r.Hints {
		h.f(`<article class="hint %s">`+"\n", svgEsc(hint.Severity))
		h.f(`<h3><span class="sev">%s</span> <code>%s</code> on %s</h3>`+"\n", svgEsc(hint.Severity), svgEsc(hint.ID),
			svgEsc(r.repHintHead(hint)))
		h.f("<p><b>Evidence:</b> %s</p>\n", svgEsc(hint.Evidence))
		h.f("<p><b>Next step:</b> %s</p>\n", svgEsc(hint.Suggestion))
		if eps := repEpisodes(hint); len(eps) > 0 {
			h.raw("<ul>\n")
			for _, ep := range eps {
				h.f("<li>%s</li>\n", svgEsc(ep))
			}
			h.raw("</ul>\n")
		}
		h.raw("</article>\n")
	}
	h.raw("</section>\n")
}

// htmlTimeline is the drawing, with its legend.
func (r *doc) htmlTimeline(h htmlForm) {
	h.raw("<section>\n<h2>Timeline</h2>\n")
	h.raw(`<p class="legend"><span class="k util"></span>utilisation <span class="k sm"></span>SM activity ` +
		`<span class="k power"></span>power <span class="k mem"></span>memory used: each column from its least to its greatest value. ` +
		`Phases <span class="k busy"></span>busy <span class="k stalled"></span>stalled <span class="k idle"></span>idle; ` +
		`shaded: where a hint held (<span class="k critical"></span>critical <span class="k warning"></span>warning ` +
		`<span class="k info"></span>info); dashed: markers. Hover for details.</p>` + "\n")
	h.raw(`<div class="tl">`)
	r.svg(h.b, false)
	h.raw("</div>\n</section>\n")
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

// PageHead opens a page of gputop's, the report's or another's (`gputop
// diff --format html`), in the report page's style so that they read
// alike: its head, with csp added to its Content-Security-Policy, and its
// title again as its heading.
func PageHead(b *bytes.Buffer, title, csp string) {
	fmt.Fprintf(b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'%s">
<meta name="color-scheme" content="light dark">
<title>%s</title>
<style>%s</style>
</head>
<body>
<main>
<h1>%s</h1>
`, csp, svgEsc(title), htmlStyle, svgEsc(title))
}
