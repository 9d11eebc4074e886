package render

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// repClock is "H:MM:SS" in seconds.
func repClock(t *testing.T, s string) float64 {
	t.Helper()
	var h, m, sec int
	if _, err := fmt.Sscanf(s, "%d:%d:%d", &h, &m, &sec); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return float64(h*3600 + m*60 + sec)
}

// The page states one end of the recording, its last sample: the faults
// demo's header said "duration 3m" and its hints "0:01:40-0:03:01", "3m01s
// of 3m01s working" (the screen "last seen 04:46:19" in a file that ends at
// 04:46:18). No hint, episode or phase of the page ends after the header's
// duration, and a hint that holds to the end says it lasted as long.
func TestReportEndsAtTheLastSample(t *testing.T) {
	type session struct {
		name    string
		samples []timeline.Sample
		info    timeline.SourceInfo
	}
	var sessions []session
	samples, info := repDemo(t, "faults", 181) // record --duration 3m: 0:00 to 3:00
	sessions = append(sessions, session{"demo faults", samples, info})
	for _, name := range []string{"ollama_slm_rtx5070laptop_dmon.log", "llama8b_8xh100_ckpt100_querygpu_100ms_noindex.csv"} {
		res, err := importer.Import(bytes.NewReader(timelinetest.Telemetry(t, name)),
			importer.Options{Origin: name, Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, session{name, res.Samples, res.Info})
	}
	span := regexp.MustCompile(`\b(\d+:\d\d:\d\d)-(\d+:\d\d:\d\d)\b`)
	for _, s := range sessions {
		t.Run(s.name, func(t *testing.T) {
			r := report.NewReport(reporttest.Store(s.samples), s.info, repAnalysis(s.samples, s.info), report.ReportOptions{})
			last := s.samples[len(s.samples)-1].At.Sub(s.samples[0].At).Seconds()
			if float64(r.Duration) != last {
				t.Fatalf("duration %v, the last sample at %v", r.Duration, last)
			}
			ends := []float64{}
			for _, h := range r.Hints {
				ends = append(ends, float64(h.End))
				for _, ep := range h.Episodes {
					ends = append(ends, float64(ep.End))
				}
			}
			for _, p := range r.Phases {
				ends = append(ends, float64(p.End))
			}
			for _, e := range ends {
				if e > last+1e-9 {
					t.Errorf("something ends at %vs, after the last sample at %vs", e, last)
				}
			}
			var b bytes.Buffer
			if err := Text(&b, r); err != nil {
				t.Fatal(err)
			}
			text := b.String()
			for _, m := range span.FindAllStringSubmatch(text, -1) {
				// The page rounds its clocks to the second, as it does the
				// header's duration (12m for 696.9s).
				if end := repClock(t, m[2]); end > math.Round(last) {
					t.Errorf("%s ends after the recording (%vs):\n%s", m[0], last, text)
				}
			}
			if s.name == "demo faults" {
				flat := strings.Join(strings.Fields(text), " ")
				for _, want := range []string{"duration 3m,", "gpu-error on GPU1, 0:01:40-0:03:00",
					"link-degraded on GPU6-7, 0:00:00-0:03:00", "3m of 3m working"} {
					if !strings.Contains(flat, want) {
						t.Errorf("%q not in the report:\n%s", want, text)
					}
				}
			}
		})
	}
}
