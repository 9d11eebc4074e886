package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// repTelemetryText is the text report of one of the real logs
// (../shared/telemetry), imported as `gputop import` does; logs without
// timestamps start at a fixed instant.
func repTelemetryText(t *testing.T, name string) string {
	t.Helper()
	res, err := importer.Import(bytes.NewReader(timelinetest.Telemetry(t, name)),
		importer.Options{Origin: name, Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	e := reporttest.Engine(res.Samples, res.Info)
	rep := report.NewReport(reporttest.Store(res.Samples), res.Info, report.Analyse(e), report.ReportOptions{})
	var b bytes.Buffer
	if err := Text(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// llama8b's rank 0 checkpoints while GPUs 1-7 spin in a collective at
// 100% util and idle power: the page said "stalled 0s (0%)" in PHASES
// beside "CRITICAL periodic-stall ... 69% of the time". The spinning GPUs
// are the job waiting, so those stretches are stalled phases, and the note
// says where stalled comes from without host data.
func TestReportTelemetryStallsArePhases(t *testing.T) {
	text := repTelemetryText(t, "llama8b_8xh100_ckpt100_querygpu_100ms_noindex.csv")
	m := regexp.MustCompile(`PHASES  busy \S+ \(\d+%\), stalled (\S+) \((\d+)%\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no PHASES summary:\n%s", text)
	}
	if m[1] == "0s" || len(m[2]) < 2 { // at least 10%: the stalls are minutes of the 12
		t.Errorf("stalled %s (%s%%) beside a critical periodic-stall:\n%s", m[1], m[2], text)
	}
	for _, want := range []string{"CRITICAL periodic-stall on GPU0-7", "stalled only where GPUs spin in a collective"} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
			t.Errorf("%q not in the report:\n%s", want, text)
		}
	}
	if strings.Contains(text, "the phases are busy or idle only") {
		t.Errorf("the note denies the stalled phases the table lists:\n%s", text)
	}
}

// The ollama log's GPU table said "IDLE 25%" beside PHASES "idle 0s (0%)":
// IDLE counts every second under 5%, the phases fold its 1-5s pauses
// between prompts into the bursts around them. The page says so where the
// two differ that much, and only there: the vgg16 log's long idle tail is
// idle in both.
func TestReportTelemetrySaysWhyIdleDiffers(t *testing.T) {
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	text := flat(repTelemetryText(t, "ollama_slm_rtx5070laptop_dmon.log"))
	for _, want := range []string{"IDLE counts every sample under 5% (25% on GPU0); the phases judge 5s windows by " +
		"their busiest GPU and fold stretches under 10s into the work around them, so their idle is 0s (0%)",
		"idle 0s (0%)"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not in the report:\n%s", want, text)
		}
	}
	if text := repTelemetryText(t, "vgg16_tf_v100_dmon.dmon"); strings.Contains(flat(text), "IDLE counts every sample") {
		t.Errorf("a note where IDLE and the phases agree:\n%s", text)
	}
}
