package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gputop-dev/gputop/timeline/report"
)

// Markdown writes the report as GitHub-flavoured markdown, the same
// content as Text, to paste into an issue or a pull request. Text from
// outside (marker texts, the command line) is escaped so that it cannot
// break a table or turn into markup.
func Markdown(w io.Writer, rep *report.Report) error {
	r := &doc{Report: rep}
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("## gputop report: %s", EscapeMarkdown(repSourceLine(r.Source)))
	p("")
	p("%s; %s.", EscapeMarkdown(repCapital(r.repStartLine())), EscapeMarkdown(r.repSystemLine()))
	if len(r.Source.Command) > 0 {
		p("Command: %s", EscapeMarkdown(strings.Join(r.Source.Command, " ")))
	}
	for _, n := range r.Notes {
		p("")
		p("> Note: %s", EscapeMarkdown(n))
	}
	r.mdHosts(p)
	r.mdGPUs(p)
	r.mdHealth(p)
	r.mdHost(p)
	r.mdPhases(p)
	r.mdWork(p)
	r.mdMarkers(p)
	r.mdProcesses(p)
	r.mdOwners(p)
	r.mdHints(p)
	r.mdGaps(p)
	_, err := w.Write(b.Bytes())
	return err
}

// repCapital upper-cases the first letter of an ASCII sentence.
func repCapital(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// EscapeMarkdown escapes outside text for markdown: every character that
// could start markup, and the pipe that would split a table cell.
func EscapeMarkdown(s string) string {
	return repMDKeep(s, false)
}

// repMDKeep is EscapeMarkdown that, when code is set, keeps backticks that
// pair up, so a hint's suggestion can show `num_workers=0` as code.
func repMDKeep(s string, code bool) string {
	s = repClean(s)
	code = code && strings.Count(s, "`")%2 == 0
	var b strings.Builder
	inCode := false
	for _, r := range s {
		switch {
		case r == '`' && code:
			inCode = !inCode
		case inCode:
			// Inside a code span only a pipe needs its escape, and only in tables.
		case strings.ContainsRune("\\`*_[]<>#|~!", r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (r *doc) mdGPUs(p func(string, ...any)) {
	p("")
	p("### GPUs")
	p("")
	if len(r.GPUs) == 0 {
		p("None.")
		return
	}
	has := r.repGPUHas()
	head, num := has.columns()
	if r.multiHost() {
		head, num = append([]string{"host"}, head...), append([]bool{false}, num...)
	}
	mdHead(p, head, num)
	for _, g := range r.GPUs {
		name := EscapeMarkdown(repGPULabel(g))
		if g.Lost {
			name += " (lost at " + repAt(g.LostAt) + ")"
		}
		row := has.cells(g, name)
		if r.multiHost() {
			row = append([]string{EscapeMarkdown(g.Host)}, row...)
		}
		p("| %s |", strings.Join(row, " | "))
	}
	p("")
	p("%s", r.gpuLegend(has))
}

// mdHead writes a table's heading and its rule, the figures' (num)
// aligned right.
func mdHead(p func(string, ...any), cells []string, num []bool) {
	rule := "|"
	for i := range cells {
		if i < len(num) && num[i] {
			rule += "---:|"
		} else {
			rule += "---|"
		}
	}
	p("| %s |", strings.Join(cells, " | "))
	p("%s", rule)
}

func (r *doc) mdHost(p func(string, ...any)) {
	h := r.Host
	if !hostRecorded(h) && r.multiHost() {
		return // each host's is in the hosts section
	}
	p("")
	p("### Host")
	p("")
	if !hostRecorded(h) {
		p("%s.", EscapeMarkdown(repCapital(r.repHostAbsent())))
		return
	}
	p("| | mean | p50 | p95 | max |")
	p("|---|---:|---:|---:|---:|")
	row := func(name string, s report.ReportStats) {
		p("| %s | %s | %s | %s | %s |", name, repPct(s.Mean), repPct(s.P50), repPct(s.P95), repPct(s.Max))
	}
	row("CPU"+repCores(h), h.CPU)
	row("iowait", h.IOWait)
	if !h.JobCPU.Mean.Unknown() {
		row("job CPU (of one core)", h.JobCPU)
	}
	p("")
	line := fmt.Sprintf("RAM peak %s; swap peak %s", repBytesOf(h.RAMUsedMax, h.RAMTotal), repBytes(h.SwapUsedMax))
	if !h.JobCPU.Mean.Unknown() {
		line += "; job RSS peak " + repBytes(h.JobRSSMax)
	}
	p("%s.", line)
}

func (r *doc) mdPhases(p func(string, ...any)) {
	p("")
	p("### Phases")
	p("")
	p("%s.", r.repPhaseTotals())
	auto, marked := r.repSplitPhases()
	for i, ps := range [][]report.ReportPhase{auto, marked} {
		if len(ps) == 0 {
			continue
		}
		p("")
		p("%s", [...]string{"Automatic phases:", "Marked phases, named by the markers:"}[i])
		p("")
		sm, cpu := repPhaseHas(ps)
		row := func(sep string, cells ...string) {
			p("|%s%s%s|", sep, strings.Join(phaseCols(cells, sm, cpu), sep+"|"+sep), sep)
		}
		row(" ", "start", "length", "kind", "util", "SM", "worst GPU", "host CPU", "label")
		row("", "---:", "---:", "---", "---:", "---:", "---", "---:", "---")
		shown, rest := r.repPhaseRows(ps)
		for _, ph := range shown {
			row(" ", repAt(ph.Start), repDur(ph.Duration.Duration()), ph.Kind, repPct(ph.UtilMean), repPct(ph.SMActiveMean),
				EscapeMarkdown(r.repWorstName(ph)), repPct(ph.HostCPUMean), EscapeMarkdown(ph.Label))
		}
		if rest != "" {
			p("")
			p("%s.", EscapeMarkdown(repCapital(rest)))
		}
	}
}

func (r *doc) mdMarkers(p func(string, ...any)) {
	if len(r.Markers) == 0 {
		return
	}
	p("")
	p("### Markers")
	p("")
	p("| at | text | origin |")
	p("|---:|---|---|")
	for _, m := range r.Markers {
		p("| %s | %s | %s |", repAt(m.At), EscapeMarkdown(m.Text), EscapeMarkdown(m.Origin))
	}
}

func (r *doc) mdHints(p func(string, ...any)) {
	p("")
	p("### Hints")
	p("")
	if len(r.Hints) == 0 {
		p("None.")
		return
	}
	for i, h := range r.Hints {
		p("%d. **%s** `%s` on %s  ", i+1, h.Severity, EscapeMarkdown(h.ID), EscapeMarkdown(r.repHintHead(h)))
		p("   Evidence: %s  ", repMDKeep(h.Evidence, true))
		p("   Next step: %s", repMDKeep(h.Suggestion, true))
		if eps := repEpisodes(h); len(eps) > 0 {
			p("")
			for _, ep := range eps {
				p("   - %s", EscapeMarkdown(ep))
			}
		}
	}
}

func (r *doc) mdGaps(p func(string, ...any)) {
	if len(r.Gaps) == 0 {
		return
	}
	p("")
	p("### Gaps")
	p("")
	p("%s", EscapeMarkdown(r.repGapSentence()))
}

// repGapSentence says how much sampling paused, and where.
func (r *doc) repGapSentence() string {
	noun := "pauses"
	if len(r.Gaps) == 1 {
		noun = "pause"
	}
	return fmt.Sprintf("%d %s in sampling, %s in all, left out of every figure: %s.",
		len(r.Gaps), noun, repDur(r.repGapTotal()), r.repGapList())
}
