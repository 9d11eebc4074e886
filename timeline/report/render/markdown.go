package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/units"
)

// Markdown writes the report as GitHub-flavoured markdown, the same
// content as Text, to paste into an issue or a pull request. Text from
// outside (marker texts, the command line) is escaped so that it cannot
// break a table or turn into markup.
func Markdown(w io.Writer, rep *report.Report) error {
	r := &doc{Report: rep}
	var b bytes.Buffer
	m := mdForm{&b}
	p := m.line
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
	r.hosts(m)
	r.gpus(m)
	r.health(m)
	r.host(m)
	r.phases(m)
	r.mdWork(m)
	r.markers(m)
	r.processes(m)
	r.owners(m)
	r.mdHints(m)
	r.gaps(m)
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

func (r *doc) mdHints(m mdForm) {
	p := m.line
	m.section("Hints")
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

// repGapSentence says how much sampling paused, and where: the first few
// gaps, "0:10:05-0:11:05, ...".
func (r *doc) repGapSentence() string {
	gap := func(i int) string { return repAt(r.Gaps[i].Start) + "-" + repAt(r.Gaps[i].End) }
	return fmt.Sprintf("%s in sampling, %s in all, left out of every figure: %s.", units.Count(len(r.Gaps), "pause"),
		repDur(r.repGapTotal()), strings.Join(firstFew(len(r.Gaps), 10, gap), ", "))
}
