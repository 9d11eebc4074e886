package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/recordings/importer"
	"github.com/gputop-dev/gputop/timeline"
	"github.com/gputop-dev/gputop/timeline/analysis"
	"github.com/gputop-dev/gputop/timeline/report"
	"github.com/gputop-dev/gputop/timeline/report/reporttest"
)

// bigNode describes the log of a big machine: how many GPUs, for how long,
// sampled how often, which GPU sits idle, and how often every GPU stalls.
type bigNode struct {
	gpus      int
	span      time.Duration
	interval  time.Duration
	idleGPU   int           // 0 % throughout, memory held; -1 for none
	stallEach time.Duration // every GPU at 0 % for stallFor in each of these
	stallFor  time.Duration
	dropouts  []bigDropout
}

// bigDropout is one GPU idle, memory freed, for a while.
type bigDropout struct {
	gpu          int
	from, length time.Duration
}

// bigDay is the machine: 64 GPUs logged by nvidia-smi every 15 s
// for a day, GPU37 idle throughout, every GPU stalled a minute in ten.
var bigDay = bigNode{gpus: 64, span: 24 * time.Hour, interval: 15 * time.Second, idleGPU: 37,
	stallEach: 10 * time.Minute, stallFor: time.Minute}

// writeLog writes the node's log as `nvidia-smi --query-gpu=timestamp,index,
// name,utilization.gpu,memory.used,memory.total,power.draw --format=csv -l 15`
// does: no power limit, no clocks, no clock-event reasons. Values wobble by a
// fixed pattern so that no two GPUs read alike and every run is the same.
func (n bigNode) writeLog(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W]\n")
	start := reporttest.At0
	for at := time.Duration(0); at <= n.span; at += n.interval {
		stamp := start.Add(at).Format("2006/01/02 15:04:05.000")
		stalled := n.stallEach > 0 && at%n.stallEach < n.stallFor
		for g := range n.gpus {
			dropped := false
			for _, d := range n.dropouts {
				dropped = dropped || (g == d.gpu && at >= d.from && at < d.from+d.length)
			}
			wobble := (int(at/n.interval)*7 + g*13) % 5 // 0-4
			util, power, mem := 95+wobble, 300+10*float64(wobble)+float64(g%8), 61000+100*g%2000
			switch {
			case g == n.idleGPU:
				util, power, mem = 0, 62+float64(wobble%2), 1200
			case dropped:
				util, power, mem = 0, 60+float64(wobble%2), 0
			case stalled:
				util, power = 0, 85+float64(wobble)
			}
			fmt.Fprintf(bw, "%s, %d, NVIDIA H100 80GB HBM3, %d %%, %d MiB, 81559 MiB, %.2f W\n",
				stamp, g, util, mem, power)
		}
	}
	return bw.Flush()
}

// bigImport imports the node's log as `gputop import` does.
func (n bigNode) bigImport(tb testing.TB) *importer.Result {
	tb.Helper()
	var log bytes.Buffer
	if err := n.writeLog(&log); err != nil {
		tb.Fatal(err)
	}
	res, err := importer.Import(&log, importer.Options{Origin: "smi.csv"})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// bigRecording imports the node's log into a recording, as `gputop import`
// does, and returns its path.
func (n bigNode) bigRecording(tb testing.TB) string {
	tb.Helper()
	res := n.bigImport(tb)
	path := filepath.Join(tb.TempDir(), "big.gtr")
	w, err := recordings.Create(path, recordings.Header{Version: "test", Info: res.Info, Start: res.Samples[0].At}, false)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range res.Samples {
		if err := w.Write(&res.Samples[i]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// bigReport reads a recording into a store and a fresh Engine, as `gputop
// report` does, and reports on it; with what the Engine said.
func bigReport(tb testing.TB, path string, opts report.ReportOptions) (*report.Report, report.Analysis) {
	tb.Helper()
	r, err := recordings.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	store := timeline.NewStore(timeline.StoreOptions{})
	eng := analysis.NewEngine(r.Info())
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		eng.SetInfo(r.Info())
		store.Add(&s)
		eng.Add(&s)
	}
	a := report.Analyse(eng)
	return report.NewReport(store, eng.Info(), a, opts), a
}

// lines counts a report's lines.
func lines(b []byte) int { return bytes.Count(b, []byte("\n")) }

// A day of 64 GPUs, logged by nvidia-smi every 15 s, reads in a few pages:
// one hint per finding, naming its GPUs as a set, the longest phases and a
// line for the rest, one row per GPU, the host absent in one line; the
// JSON keeps every phase and episode.
func TestReportBigNodeDay(t *testing.T) {
	if testing.Short() {
		t.Skip("imports and reports 368,640 rows")
	}
	r, a := bigReport(t, bigDay.bigRecording(t), report.ReportOptions{})
	text, md, js := repRender(t, r)
	repCheckText(t, text)
	if n := lines(text); n > 300 {
		t.Errorf("the text report has %d lines, more than 300:\n%s", n, text)
	}
	if n := lines(md); n > 300 {
		t.Errorf("the markdown report has %d lines, more than 300:\n%s", n, md)
	}
	for _, want := range []*regexp.Regexp{
		// GPU37 idle, as an imbalance, and as idle with memory held.
		regexp.MustCompile(`(?m)^WARNING  gpu-imbalance on GPU37, `),
		regexp.MustCompile(`(?m)^\S+ +idle-memory-held on GPU37, `),
		// Every other GPU stalls every ten minutes: one hint, the GPUs as a set.
		regexp.MustCompile(`(?m)^\S+ +periodic-stall on GPU0-36,38-63, `),
		regexp.MustCompile(`stall for 60s every\s+10m`),
		// Power without a limit reads as watts, not as a ratio to N/A.
		regexp.MustCompile(`(?m)^ 37  1\.2/79\.6GiB +62W `),
		regexp.MustCompile(`(?m)^HOST  not recorded: imported from smi\.csv \(nvidia-smi-csv\)$`),
		regexp.MustCompile(`(?m)^\.\.\. and \d+ more phases: \S+ busy, \S+ idle; --phases all lists every one$`),
	} {
		if !want.Match(text) {
			t.Errorf("the text report does not match %s:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), "/N/A") || strings.Contains(string(text), "CPU mean N/A") {
		t.Errorf("the text report writes unknowns for what was never recorded:\n%s", text)
	}
	if rows := regexp.MustCompile(`(?m)^ {0,2}\d+  H100 80GB HBM3 `).FindAll(text, -1); len(rows) != 64 {
		t.Errorf("%d GPU rows, want one for each of 64", len(rows))
	}
	ids := map[string]int{}
	for _, h := range r.Hints {
		ids[h.ID]++
	}
	if ids[timeline.HintPowerCapped] != 0 {
		t.Errorf("%d power-capped hints from a log without a limit, clocks or clock-event reasons", ids[timeline.HintPowerCapped])
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("%d %s hints: one finding is one hint", n, id)
		}
	}
	var doc struct {
		Phases []json.RawMessage
		Hints  []struct {
			ID       string
			Episodes []json.RawMessage
		}
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Phases) != len(a.Phases) || len(doc.Phases) <= 20 {
		t.Errorf("the JSON has %d phases, the analysis %d", len(doc.Phases), len(a.Phases))
	}
	episodes := map[string]int{}
	for _, h := range a.Hints {
		episodes[h.ID] = len(h.Episodes)
	}
	for _, h := range doc.Hints {
		if len(h.Episodes) != episodes[h.ID] {
			t.Errorf("the JSON has %d episodes of %s, the analysis %d", len(h.Episodes), h.ID, episodes[h.ID])
		}
	}
	all, _ := bigReport(t, bigDay.bigRecording(t), report.ReportOptions{PhaseRows: -1})
	var full bytes.Buffer
	if err := Text(&full, all); err != nil {
		t.Fatal(err)
	}
	if rows := regexp.MustCompile(`(?m)^\d+:\d\d:\d\d +\S+ +(busy|idle) `).FindAll(full.Bytes(), -1); len(rows) != len(a.Phases) {
		t.Errorf("PhaseRows -1 lists %d phases of %d", len(rows), len(a.Phases))
	}
}

// One finding on different GPUs at different times is one hint that lists
// its five largest episodes and says how many more there are; the JSON
// has them all.
func TestReportBigNodeEpisodes(t *testing.T) {
	node := bigNode{gpus: 64, span: 8 * time.Hour, interval: 15 * time.Second, idleGPU: -1}
	for i := range 8 {
		node.dropouts = append(node.dropouts, bigDropout{gpu: 3 + 7*i, from: time.Duration(30+50*i) * time.Minute,
			length: time.Duration(10+2*i) * time.Minute})
	}
	r, a := bigReport(t, node.bigRecording(t), report.ReportOptions{})
	text, md, js := repRender(t, r)
	var imbalance *timeline.Hint
	for i, h := range a.Hints {
		if h.ID == timeline.HintGPUImbalance {
			imbalance = &a.Hints[i]
		}
	}
	if imbalance == nil || len(imbalance.Episodes) != 8 {
		t.Fatalf("want one gpu-imbalance hint of 8 episodes; the analysis says %+v", a.Hints)
	}
	for name, out := range map[string][]byte{"text": text, "markdown": md} {
		if n := bytes.Count(out, []byte("while GPU")); n != 6 { // the hint's evidence and five episodes
			t.Errorf("%s lists %d episodes' evidence, want the hint's and five:\n%s", name, n, out)
		}
		if !bytes.Contains(out, []byte("and 3 more")) {
			t.Errorf("%s does not say how many more episodes there are:\n%s", name, out)
		}
	}
	if n := bytes.Count(js, []byte(`"evidence": "GPU`)); n < 9 {
		t.Errorf("the JSON has %d evidences, want the hint's and all 8 episodes'", n)
	}
}
