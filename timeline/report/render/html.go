package render

import (
	"bytes"
	"fmt"
	"io"
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
	h := htmlWriter{&b}
	title := "gputop report: " + repSourceLine(r.Source)
	h.raw(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="color-scheme" content="light dark">
`)
	h.f("<title>%s</title>\n", svgEsc(title))
	h.f("<style>%s</style>\n</head>\n<body>\n<main>\n", htmlStyle)
	h.f("<h1>%s</h1>\n", svgEsc(title))
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
	r.htmlHosts(h)
	r.htmlGPUs(h)
	r.htmlHealth(h)
	r.htmlHost(h)
	r.htmlPhases(h)
	r.htmlMarkers(h)
	r.htmlProcesses(h)
	r.htmlOwners(h)
	r.htmlGaps(h)
	h.raw(`<footer>Made by <code>gputop report --format html</code>: the same report as <code>--format text</code>, drawn.</footer>` + "\n")
	h.raw("</main>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// htmlWriter writes a page. Only raw and f's format strings are markup;
// every value from the report goes through svgEsc first.
type htmlWriter struct{ b *bytes.Buffer }

func (h htmlWriter) raw(s string)                 { h.b.WriteString(s) }
func (h htmlWriter) f(format string, args ...any) { fmt.Fprintf(h.b, format, args...) }
func (h htmlWriter) cell(tag, class, s string) {
	if class != "" {
		h.f(`<%s class="%s">%s</%s>`, tag, class, svgEsc(s), tag)
		return
	}
	h.f("<%s>%s</%s>", tag, svgEsc(s), tag)
}

// row writes a table row of escaped cells; numeric ones (num) align right.
func (h htmlWriter) row(num []bool, cells ...string) {
	h.raw("<tr>")
	h.cells("td", num, cells)
	h.raw("</tr>\n")
}

// head writes a table's header row.
func (h htmlWriter) head(num []bool, cells ...string) {
	h.raw("<table>\n<thead><tr>")
	h.cells("th", num, cells)
	h.raw("</tr></thead>\n<tbody>\n")
}

// cells writes a row's cells in tag, numeric ones (num) of class n.
func (h htmlWriter) cells(tag string, num []bool, cells []string) {
	for i, c := range cells {
		class := ""
		if i < len(num) && num[i] {
			class = "n"
		}
		h.cell(tag, class, c)
	}
}

// htmlSummary is the verdict at a glance: the hints counted by severity,
// the phases' totals and the figures over every GPU.
func (r *doc) htmlSummary(h htmlWriter) {
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
	utilSum, utilN := 0.0, 0
	energy, lowest := report.Number(0), -1
	haveEnergy := false
	for i, g := range r.GPUs {
		if !g.Util.Mean.Unknown() {
			utilSum += float64(g.Util.Mean)
			utilN++
			if lowest < 0 || g.Util.Mean < r.GPUs[lowest].Util.Mean {
				lowest = i
			}
		}
		if !g.Energy.Unknown() {
			energy += g.Energy
			haveEnergy = true
		}
	}
	parts := []string{r.gpuNames().Split(len(r.GPUs))}
	if utilN > 0 {
		s := "util mean " + repPct(report.Number(utilSum/float64(utilN)))
		if utilN > 1 {
			g := r.GPUs[lowest]
			s += " (lowest " + r.gpuNames().One(g.Index) + " " + repPct(g.Util.Mean) + ")"
		}
		parts = append(parts, s)
	}
	if haveEnergy {
		parts = append(parts, "energy "+repEnergy(energy))
	}
	return strings.Join(parts, ", ")
}

// htmlHints lists the hints worst first, each with its evidence, its next
// step and its largest episodes: what the text's HINTS section says.
func (r *doc) htmlHints(h htmlWriter) {
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
func (r *doc) htmlTimeline(h htmlWriter) {
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
