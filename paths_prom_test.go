package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
)

// The harness's Prometheus path: what `gputop serve` exports of each
// sample, as a Prometheus scraping it every second keeps it, imported back
// with `gputop import prometheus --step 2s`. The scrapes are taken of the
// recording in its own time (serve's exporter, fed through the pipeline's
// judge as serve feeds it) and handed to a real Prometheus by its own
// backfill (promtool tsdb create-blocks-from openmetrics), so six minutes
// of a demo need not take six minutes. A backfilled series has no
// staleness marker where it ends (a lost GPU's); Prometheus is started with
// a lookback of 1.5 s, so that such a series ends where its scrapes do, as
// the marker would end it.

// promPathStep is the import's step, as the user imported.
const promPathStep = 2 * time.Second

// promStory is the story of a recording through serve, Prometheus and the
// import.
func promStory(t *testing.T, recording string) story {
	t.Helper()
	promBin := needPrometheus(t)
	dir := t.TempDir()
	om := filepath.Join(dir, "scrapes.om")
	first, last := scrapeRecording(t, recording, om)
	tsdb := filepath.Join(dir, "tsdb")
	if out, err := exec.Command("/usr/bin/promtool", "tsdb", "create-blocks-from", "openmetrics", om, tsdb).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, tail(string(out), 2000))
	}
	addr := startPrometheusWith(t, promBin, dir, "global:\n  scrape_interval: 1m\n", "--storage.tsdb.retention.time=100y",
		"--query.lookback-delta=1500ms")
	waitReady(t, addr, filepath.Join(dir, "prometheus.log"))
	imported := filepath.Join(dir, "imported.gtr")
	code, _, errOut := gputop("import", "prometheus", "http://"+addr, "--from", first.Format(time.RFC3339Nano),
		"--to", last.Format(time.RFC3339Nano), "--step", promPathStep.String(), "-o", imported)
	if code != 0 {
		t.Fatalf("import prometheus: exit %d\n%s", code, errOut)
	}
	return storyOf(t, pathJSON(t, imported), "", 0)
}

// scrapeRecording writes what serve's /metrics answered after each sample
// of recording, stamped with the sample's time, as OpenMetrics (each
// family's lines together, as the format wants); it returns the first and
// last sample's times.
func scrapeRecording(t *testing.T, recording, out string) (first, last time.Time) {
	t.Helper()
	r, err := recordings.Open(recording)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pipe := newPipeline(timeline.DefaultHistoryBudget)
	exp := pipe.exporter()
	src := pipe.observed(recordings.NewReplay(r), exp)
	families := map[string][]string{}
	var order []string
	for {
		s, err := src.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if first.IsZero() {
			first = s.At
		}
		last = s.At
		rec := httptest.NewRecorder()
		exp.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		ts := strconv.FormatFloat(float64(s.At.UnixMilli())/1000, 'f', 3, 64)
		sc := bufio.NewScanner(rec.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			name := line[:strings.IndexAny(line, "{ ")]
			if _, ok := families[name]; !ok {
				order = append(order, name)
			}
			families[name] = append(families[name], line+" "+ts)
		}
	}
	if first.IsZero() {
		t.Fatalf("%s has no samples", recording)
	}
	slices.Sort(order)
	var b strings.Builder
	for _, name := range order {
		fmt.Fprintf(&b, "# TYPE %s unknown\n", name)
		for _, line := range families[name] {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	b.WriteString("# EOF\n")
	if err := os.WriteFile(out, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return first, last
}

// waitReady waits (30 s at most) for Prometheus to have loaded its blocks.
func waitReady(t *testing.T, addr, logPath string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	log, _ := os.ReadFile(logPath)
	t.Fatalf("Prometheus not ready after 30 s; its log's tail:\n%s", tail(string(log), 2000))
}
