package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the report as GitHub-flavoured markdown, the same
// content as WriteText, to paste into an issue or a pull request. Text from
// outside (marker texts, the command line) is escaped so that it cannot
// break a table or turn into markup.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("## gputop report: %s", repMD(repSourceLine(r.Source)))
	p("")
	p("%s; %s.", repMD(repCapital(r.repStartLine())), repMD(r.repSystemLine()))
	if len(r.Source.Command) > 0 {
		p("Command: %s", repMD(strings.Join(r.Source.Command, " ")))
	}
	for _, n := range r.Notes {
		p("")
		p("> Note: %s", repMD(n))
	}
	r.mdGPUs(p)
	r.mdHost(p)
	r.mdPhases(p)
	r.mdMarkers(p)
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

// repMD escapes outside text for markdown: every character that could start
// markup, and the pipe that would split a table cell.
func repMD(s string) string {
	return repMDKeep(s, false)
}

// repMDKeep is repMD that, when code is set, keeps backticks that pair up,
// so a hint's suggestion can show `num_workers=0` as code.
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

func (r *Report) mdGPUs(p func(string, ...any)) {
	p("")
	p("### GPUs")
	p("")
	if len(r.GPUs) == 0 {
		p("None.")
		return
	}
	p("| GPU | name | util mean | p50 | p95 | max | SM mean | p50 | p95 | max | idle | memory peak | power mean | energy |")
	p("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, g := range r.GPUs {
		u, s := g.Util, g.SMActive
		name := repMD(repGPUName(g.Name))
		if g.Lost {
			name += " (lost at " + repAt(g.LostAt) + ")"
		}
		p("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", g.Index, name,
			repPct(u.Mean), repPct(u.P50), repPct(u.P95), repPct(u.Max),
			repPct(s.Mean), repPct(s.P50), repPct(s.P95), repPct(s.Max), repShare(g.IdleFraction),
			repBytesOf(g.MemUsedMax, g.MemTotal), repWattsOf(g.PowerMean, g.PowerLimit), repEnergy(g.Energy))
	}
	p("")
	p("Util and SM (SM active): mean, then percentiles of every sample. Idle: time with utilisation under %s.",
		repPct(r.IdleUtil))
}

func (r *Report) mdHost(p func(string, ...any)) {
	h := r.Host
	p("")
	p("### Host")
	p("")
	p("| | mean | p50 | p95 | max |")
	p("|---|---:|---:|---:|---:|")
	row := func(name string, s ReportStats) {
		p("| %s | %s | %s | %s | %s |", name, repPct(s.Mean), repPct(s.P50), repPct(s.P95), repPct(s.Max))
	}
	cores := ""
	if h.Cores > 0 {
		cores = fmt.Sprintf(" (%d cores)", h.Cores)
	}
	row("CPU"+cores, h.CPU)
	row("iowait", h.IOWait)
	if !repUnknown(h.JobCPU.Mean) {
		row("job CPU (of one core)", h.JobCPU)
	}
	p("")
	line := fmt.Sprintf("RAM peak %s; swap peak %s", repBytesOf(h.RAMUsedMax, h.RAMTotal), repBytes(h.SwapUsedMax))
	if !repUnknown(h.JobCPU.Mean) {
		line += "; job RSS peak " + repBytes(h.JobRSSMax)
	}
	p("%s.", line)
}

func (r *Report) mdPhases(p func(string, ...any)) {
	p("")
	p("### Phases")
	p("")
	p("%s.", r.repPhaseTotals())
	auto, marked := r.repSplitPhases()
	for i, ps := range [][]ReportPhase{auto, marked} {
		if len(ps) == 0 {
			continue
		}
		p("")
		p("%s", [...]string{"Automatic phases:", "Marked phases, named by the markers:"}[i])
		p("")
		p("| start | length | kind | util | SM | worst GPU | host CPU | label |")
		p("|---:|---:|---|---:|---:|---|---:|---|")
		shown := r.repShown(len(ps))
		for _, ph := range ps[:shown] {
			p("| %s | %s | %s | %s | %s | %s | %s | %s |", repAt(ph.Start), repDur(repSeconds(ph.Duration)), ph.Kind,
				repPct(ph.UtilMean), repPct(ph.SMActiveMean), repWorst(ph), repPct(ph.HostCPUMean), repMD(ph.Label))
		}
		if shown < len(ps) {
			p("")
			p("And %d more (the JSON form lists every phase).", len(ps)-shown)
		}
	}
}

func (r *Report) mdMarkers(p func(string, ...any)) {
	if len(r.Markers) == 0 {
		return
	}
	p("")
	p("### Markers")
	p("")
	p("| at | text | origin |")
	p("|---:|---|---|")
	for _, m := range r.Markers {
		p("| %s | %s | %s |", repAt(m.At), repMD(m.Text), repMD(m.Origin))
	}
}

func (r *Report) mdHints(p func(string, ...any)) {
	p("")
	p("### Hints")
	p("")
	if len(r.Hints) == 0 {
		p("None.")
		return
	}
	for i, h := range r.Hints {
		p("%d. **%s** `%s` on %s  ", i+1, h.Severity, repMD(h.ID), repMD(repHintHead(h)))
		p("   Evidence: %s  ", repMDKeep(h.Evidence, true))
		p("   Next step: %s", repMDKeep(h.Suggestion, true))
		if eps := repEpisodes(h); len(eps) > 0 {
			p("")
			for _, ep := range eps {
				p("   - %s", repMD(ep))
			}
		}
	}
}

func (r *Report) mdGaps(p func(string, ...any)) {
	if len(r.Gaps) == 0 {
		return
	}
	p("")
	p("### Gaps")
	p("")
	p("%s", repMD(r.repGapSentence()))
}

// repGapSentence says how much sampling paused, and where.
func (r *Report) repGapSentence() string {
	noun := "pauses"
	if len(r.Gaps) == 1 {
		noun = "pause"
	}
	return fmt.Sprintf("%d %s in sampling, %s in all, left out of every figure: %s.",
		len(r.Gaps), noun, repDur(r.repGapTotal()), r.repGapList())
}
