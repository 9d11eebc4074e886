package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
)

// The -update flag rewrites the golden files. Another test file of this
// package may define it first; then both share it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func repUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// repGolden compares got with testdata/name, or rewrites it with -update.
func repGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if repUpdate() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

// repRender writes a report in every form.
func repRender(t *testing.T, r *report.Report) (text, md, js []byte) {
	t.Helper()
	var a, b, c bytes.Buffer
	if err := Text(&a, r); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&c); err != nil {
		t.Fatal(err)
	}
	return a.Bytes(), b.Bytes(), c.Bytes()
}

// repCheckText asserts what every text report must be: 80 columns, and no
// control characters but newlines.
func repCheckText(t *testing.T, text []byte) {
	t.Helper()
	for i, line := range strings.Split(string(text), "\n") {
		if n := utf8.RuneCountInString(line); n > repTextWidth {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
		for _, r := range line {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Errorf("line %d has control character %U: %q", i+1, r, line)
			}
		}
	}
}

func TestReportGolden(t *testing.T) {
	importSamples, importInfo := reporttest.ImportSamples()
	tests := []struct {
		name string
		r    *report.Report
	}{
		{"checkpoint", report.NewReport(reporttest.CheckpointStore(), reporttest.CheckpointInfo(), repCheckpointAnalysis(), report.ReportOptions{})},
		{"import", report.NewReport(reporttest.Store(importSamples), importInfo, repAnalysis(importSamples, importInfo), report.ReportOptions{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, md, js := repRender(t, tt.r)
			repCheckText(t, text)
			repGolden(t, "report_"+tt.name+".txt.golden", text)
			repGolden(t, "report_"+tt.name+".md.golden", md)
			repGolden(t, "report_"+tt.name+".json.golden", js)
		})
	}
}

// TestReportOutsideText feeds hostile marker texts and a long command line
// through every form: the text stays in 80 columns with no escape sequences,
// markdown table rows keep their cells, JSON keeps the text as it was.
func TestReportOutsideText(t *testing.T) {
	s := reporttest.CheckpointStore()
	hostile := []string{
		"\x1b[2J\x1b[31mred\x1b[0m and a bell\a",
		"a | pipe, `code`, **bold**, [link](http://x), <b>html</b>, # heading",
		"line one\nline two\r\n\ttabbed",
		strings.Repeat("averyveryverylongwordwithoutspaces", 4),
		"invalid \xff utf-8",
	}
	for i, m := range hostile {
		s.AddMarker(timeline.Marker{At: reporttest.T(float64(10 + i)), Text: m, Origin: "job"})
	}
	info := reporttest.CheckpointInfo()
	info.Command = []string{"python", "-c", strings.Repeat("import torch; ", 20) + "\x1b]0;title\a"}
	info.GPUs[0].Name = "NVIDIA GeForce RTX 4090 Laptop GPU With A Very Long Name"
	r := report.NewReport(s, info, repCheckpointAnalysis(), report.ReportOptions{})
	text, md, js := repRender(t, r)
	repCheckText(t, text)
	repCheckMarkdown(t, md)
	if !bytes.Contains(js, []byte(`a | pipe, `)) {
		t.Errorf("JSON changed the marker text:\n%s", js)
	}
}

// repCheckMarkdown asserts what outside text must not do to markdown: put
// a control character in it, or give a table row more or fewer cells than
// its header.
func repCheckMarkdown(t *testing.T, md []byte) {
	t.Helper()
	header := 0 // cells in the current table's header; 0 outside tables
	for _, line := range strings.Split(string(md), "\n") {
		if strings.ContainsAny(line, "\x1b\a\r") {
			t.Errorf("markdown line with a control character: %q", line)
		}
		switch {
		case !strings.HasPrefix(line, "|"):
			header = 0
		case header == 0:
			header = repMDCells(line)
		case repMDCells(line) != header:
			t.Errorf("table row has %d cells, its header %d: %q", repMDCells(line), header, line)
		}
	}
}

// repMDCells counts a table row's cells: its unescaped pipes, less one.
func repMDCells(row string) int {
	n := 0
	esc := false
	for _, r := range row {
		switch {
		case esc:
			esc = false
		case r == '\\':
			esc = true
		case r == '|':
			n++
		}
	}
	return n - 1
}

// TestReportPhaseRows: past PhaseRows a table lists the longest phases, in
// time order, and sums up the rest by kind; PhaseRows -1 lists them all.
func TestReportPhaseRows(t *testing.T) {
	r := report.NewReport(reporttest.CheckpointStore(), reporttest.CheckpointInfo(), repCheckpointAnalysis(), report.ReportOptions{PhaseRows: 2})
	text, md, _ := repRender(t, r)
	for _, want := range []string{
		"0:00:00  1m        busy", "0:01:45  2m20s     busy",
		"... and 2 more phases: 45s stalled, 55s idle; --phases all lists every one",
		"0:00:00  1m        marker", "0:01:45  2m15s     marker",
		"... and 2 more phases: 1m45s in all; --phases all lists every one",
	} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, gone := range []string{"0:04:05  55s       idle", "0:01:45  45s       marker"} {
		if bytes.Contains(text, []byte(gone)) {
			t.Errorf("text lists a shorter phase, %q:\n%s", gone, text)
		}
	}
	if !bytes.Contains(md, []byte("And 2 more phases: 45s stalled, 55s idle; --phases all lists every one.")) {
		t.Errorf("markdown does not sum up the phases past two:\n%s", md)
	}
	all := report.NewReport(reporttest.CheckpointStore(), reporttest.CheckpointInfo(), repCheckpointAnalysis(), report.ReportOptions{PhaseRows: -1})
	text, _, _ = repRender(t, all)
	if bytes.Contains(text, []byte("more phases")) {
		t.Errorf("PhaseRows -1 still summarises:\n%s", text)
	}
}

// FuzzReportOutsideText checks that no marker text or command line can push
// the text report past 80 columns, put a control character on the
// terminal, or break a markdown table.
func FuzzReportOutsideText(f *testing.F) {
	f.Add("epoch 1", "python train.py")
	f.Add("\x1b[31mred | `x`\n", "a\u202eb")
	f.Fuzz(func(t *testing.T, marker, command string) {
		samples, info := reporttest.ImportSamples()
		s := reporttest.Store(samples)
		s.AddMarker(timeline.Marker{At: reporttest.T(30), Text: marker, Origin: "job"})
		info.Command = []string{command}
		hint := timeline.Hint{ID: timeline.HintGPUIdle, Evidence: marker, Suggestion: command}
		hint.Episodes = []timeline.Episode{{Evidence: marker}, {Evidence: command}}
		r := report.NewReport(s, info, report.Analysis{Hints: []timeline.Hint{hint}}, report.ReportOptions{})
		text, md, _ := repRender(t, r)
		repCheckText(t, text)
		if strings.ContainsAny(string(text), "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") {
			t.Errorf("text keeps a bidirectional override:\n%q", text)
		}
		repCheckMarkdown(t, md)
	})
}

// repAnalysis is what an Engine fed samples says of them.
func repAnalysis(samples []timeline.Sample, info timeline.SourceInfo) report.Analysis {
	return report.Analyse(reporttest.Engine(samples, info))
}

// repCheckpointAnalysis is what the Engine says of the checkpoint fixture,
// with reporttest.CheckpointHints for its hints.
func repCheckpointAnalysis() report.Analysis {
	a := repAnalysis(reporttest.CheckpointSamples(), reporttest.CheckpointInfo())
	a.Hints = reporttest.CheckpointHints()
	return a
}
