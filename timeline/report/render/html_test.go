package render

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/probes"
	"github.com/gputop-dev/gputop/probes/demo"
	"github.com/gputop-dev/gputop/recordings/importer/prom"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
)

// repGoldenColumns keeps the drawn goldens small: 60 columns a series,
// drawn 14.7 units wide each, where the command draws TimelineColumns.
const repGoldenColumns = 60

// repDemo is secs seconds of `gputop record --demo=SCENARIO --fast`: the
// real NVML probes over the demo's mock, on a fast clock.
func repDemo(t testing.TB, scenario string, secs int) ([]timeline.Sample, timeline.SourceInfo) {
	t.Helper()
	clock := probes.NewFastClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	node, err := demo.New(scenario, 1, clock)
	if err != nil {
		t.Fatal(err)
	}
	sess := probes.OpenSession(probes.SessionConfig{Interval: time.Second, Machine: node.Machine(), Clock: clock})
	defer sess.Close()
	var out []timeline.Sample
	for range secs {
		s, err := sess.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out, sess.Info()
}

// repPromTwoHosts is the real Prometheus answer of two hosts in the
// importer's testdata (its README says how it was made), imported.
func repPromTwoHosts(t testing.TB) ([]timeline.Sample, timeline.SourceInfo) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "recordings", "importer", "prom", "testdata", "prometheus",
		"two-hosts-concatenated.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := prom.Read(f, "two-hosts-concatenated.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []timeline.Sample
	// Each reuses the sample and its metrics: each is kept as a copy.
	if err := res.Each(func(s *timeline.Sample) error {
		c := *s
		c.Values = slices.Clone(s.Values)
		out = append(out, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out, res.Info
}

// repStyles matches the style sheets, which the HTML goldens leave out:
// a colour changed is no change of content.
var repStyles = regexp.MustCompile(`(?s)<style>.*?</style>`)

// repNormalHTML is a page as its golden keeps it: without style sheets.
func repNormalHTML(page []byte) []byte {
	return repStyles.ReplaceAll(page, []byte("<style>…</style>"))
}

// The page and the drawing of two demos and of a multi-host import, as
// their goldens keep them; and what each must say.
func TestReportHTMLAndSVGGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(t testing.TB) ([]timeline.Sample, timeline.SourceInfo)
		want []string
	}{
		{"checkpoint", func(t testing.TB) ([]timeline.Sample, timeline.SourceInfo) { return repDemo(t, "checkpoint", 420) },
			[]string{"periodic-stall", "H100 80GB HBM3"}},
		{"mig", func(t testing.TB) ([]timeline.Sample, timeline.SourceInfo) { return repDemo(t, "mig", 180) },
			[]string{"MIG 1g.10gb"}},
		{"prom2hosts", repPromTwoHosts, []string{"<h2>Hosts</h2>", "node-a (2 GPUs)", "node-b (2 GPUs)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			samples, info := tt.make(t)
			r := report.NewReport(reporttest.Store(samples), info, repAnalysis(samples, info), report.ReportOptions{TimelineColumns: repGoldenColumns})
			var page, svg bytes.Buffer
			if err := HTML(&page, r); err != nil {
				t.Fatal(err)
			}
			if err := SVG(&svg, r); err != nil {
				t.Fatal(err)
			}
			repGolden(t, "report_"+tt.name+".html.golden", repNormalHTML(page.Bytes()))
			repGolden(t, "report_"+tt.name+".svg.golden", svg.Bytes())
			repCheckXML(t, svg.Bytes())
			repCheckPage(t, page.Bytes())
			for _, w := range tt.want {
				if !bytes.Contains(page.Bytes(), []byte(w)) {
					t.Errorf("the page lacks %q", w)
				}
			}
		})
	}
}

// repCheckXML asserts that an SVG is well-formed XML, as a file must be
// for anything but a forgiving browser to show it.
func repCheckXML(t *testing.T, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
	}
}

// repCheckPage asserts what every page must be: self-contained (nothing
// fetched, no script), and hints before the timeline before the tables.
func repCheckPage(t *testing.T, page []byte) {
	t.Helper()
	s := string(page)
	for _, bad := range []string{"<script", "http://", "https://", "src=", "@import", "url("} {
		if strings.Contains(strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("the page holds %q: it must be self-contained", bad)
		}
	}
	order := []string{`class="summary"`, "<h2>Hints</h2>", "<h2>Timeline</h2>", "<h2>GPUs</h2>", "<h2>Phases</h2>"}
	last := -1
	for _, o := range order {
		at := strings.Index(s, o)
		if at < last {
			t.Errorf("%q is missing or out of order", o)
		}
		last = at
	}
}

// Outside text (markers, host and GPU names, the command, evidence) can
// neither add markup to the page nor break the drawing's XML.
func TestReportHTMLOutsideText(t *testing.T) {
	s := reporttest.CheckpointStore()
	hostile := []string{
		`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, `]]></svg><svg onload=alert(1)>`,
		"\x1b[31mred\x1b[0m & 'quotes' \u202eevil", "invalid \xff utf-8 <u>",
	}
	for i, m := range hostile {
		s.AddMarker(timeline.Marker{At: reporttest.T(float64(10 + i)), Text: m, Origin: "job<i>"})
	}
	info := reporttest.CheckpointInfo()
	info.Host = `<h1>node</h1>`
	info.Command = []string{"python", `<script src="http://evil/x.js"></script>`}
	info.GPUs[0].Name = `NVIDIA <svg onload=alert(1)>`
	a := repCheckpointAnalysis()
	a.Hints[0].Evidence = `</title><script>alert(2)</script>`
	r := report.NewReport(s, info, a, report.ReportOptions{TimelineColumns: repGoldenColumns})
	var page, svg bytes.Buffer
	if err := HTML(&page, r); err != nil {
		t.Fatal(err)
	}
	if err := SVG(&svg, r); err != nil {
		t.Fatal(err)
	}
	repCheckXML(t, svg.Bytes())
	for _, out := range []string{page.String(), svg.String()} {
		for _, bad := range []string{"<script", "<img", "<svg onload", "<h1>node", "<u>", "<i>", "\x1b", "\u202e", "onerror=alert(1)>"} {
			if strings.Contains(out, bad) {
				t.Errorf("outside text reached the markup: %q", bad)
			}
		}
	}
	if !strings.Contains(page.String(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the marker's text is not on the page, escaped")
	}
}

// A day of 8 GPUs at 1 Hz draws in a bounded page: the series are
// resampled to TimelineColumns whatever the length (goal: under 2 MB;
// docs/performance.md has the size and the time of the command).
func TestReportHTMLDayIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a day of samples")
	}
	page := repHTMLDay(t)
	if n := len(page); n > 2<<20 {
		t.Errorf("the page of a day of 8 GPUs is %d bytes, over 2 MiB", n)
	}
}

// repHTMLDay is the page of timelinetest's day of 8 GPUs, a stall every
// 2 min, with a marker a minute.
func repHTMLDay(tb testing.TB) []byte {
	s := repDayStore(0)
	info := timeline.SourceInfo{Kind: timeline.Replay, Interval: time.Second}
	var hints []timeline.Hint
	h := timeline.Hint{ID: timeline.HintPeriodicStall, Severity: timeline.Warning, GPUs: []int{0, 1, 2, 3, 4, 5, 6, 7},
		Start: s.First(), End: s.Last(), Evidence: "a stall every 2m"}
	for at := s.First(); at.Before(s.Last()); at = at.Add(2 * time.Minute) {
		h.Episodes = append(h.Episodes, timeline.Episode{Start: at.Add(75 * time.Second), End: at.Add(2 * time.Minute),
			GPUs: h.GPUs, Severity: timeline.Warning, Evidence: "stalled"})
	}
	hints = append(hints, h)
	r := report.NewReport(s, info, report.Analysis{Hints: hints}, report.ReportOptions{TimelineColumns: TimelineColumns})
	var page bytes.Buffer
	if err := HTML(&page, r); err != nil {
		tb.Fatal(err)
	}
	return page.Bytes()
}

// BenchmarkReportHTMLDay is the page of a day of 8 GPUs from a store
// already read (the report and the page; `gputop report --format html`'s
// reading and judging of the file is BenchmarkReportBigNode's and the
// analysis package's to measure).
func BenchmarkReportHTMLDay(b *testing.B) {
	repDayStore(0)
	var n int
	for b.Loop() {
		n = len(repHTMLDay(b))
	}
	b.ReportMetric(float64(n), "bytes")
}
