package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// The real Prometheus (Debian's package) scrapes two gputop serve
// processes, as a monitoring stack would: dcgm-exporter's query finds
// eight GPUs on each target, and the imbalance demo's hint arrives as a
// series. Everything listens on 127.0.0.1.
func TestPrometheusScrapesTwoServes(t *testing.T) {
	// In parallel: mostly waiting on Prometheus, with ports and a runtime
	// directory of its own.
	t.Parallel()
	isolateOwnMarks(t)
	promBin := needPrometheus(t)
	bin := buildBinary(t)
	start := time.Now()
	dir := t.TempDir()
	targets := map[string]string{} // address to scenario
	for _, scenario := range []string{"imbalance", "training"} {
		addr := freeLoopbackAddr(t)
		startGroup(t, filepath.Join(dir, scenario+".log"), bin, "serve", "--demo="+scenario, "--listen", addr)
		targets[addr] = scenario
	}
	var config strings.Builder
	config.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: gputop\n    static_configs:\n      - targets: [")
	first := true
	for addr := range targets {
		if !first {
			config.WriteString(", ")
		}
		first = false
		fmt.Fprintf(&config, "%q", addr)
	}
	config.WriteString("]\n")
	promAddr := startPrometheus(t, promBin, dir, config.String())

	// Bounded: the imbalance hint needs about 30 s of samples.
	deadline := time.Now().Add(90 * time.Second)
	var gpus map[string]int
	var hinted bool
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		gpus = map[string]int{}
		for _, r := range promQuery(promAddr, "DCGM_FI_DEV_GPU_UTIL") {
			gpus[r.Metric["instance"]]++
		}
		hinted = false
		for _, r := range promQuery(promAddr, `gputop_hint_active{id="gpu-imbalance"}`) {
			hinted = hinted || targets[r.Metric["instance"]] == "imbalance"
		}
		if len(gpus) == 2 && hinted && allEight(gpus) {
			t.Logf("Prometheus had 8 GPUs from each target and the imbalance hint after %s",
				time.Since(start).Round(100*time.Millisecond))
			return
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
	t.Fatalf("after 90 s: GPUs per target %v, imbalance hint %v; prometheus log tail:\n%s", gpus, hinted, tail(string(log), 2000))
}

func allEight(gpus map[string]int) bool {
	for _, n := range gpus {
		if n != 8 {
			return false
		}
	}
	return true
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// freeLoopbackAddr is a 127.0.0.1 port free a moment ago.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startGroup starts a command in a process group of its own, its output
// in logPath, and kills the group when the test ends.
func startGroup(t *testing.T, logPath, name string, args ...string) {
	t.Helper()
	startStoppable(t, logPath, name, args...)
}

type promResult struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"` // time, the value as written
}

// promQuery asks Prometheus' HTTP API for an instant vector; nothing on
// any error (not up yet).
func promQuery(addr, query string) []promResult {
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var answer struct {
		Status string `json:"status"`
		Data   struct {
			Result []promResult `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&answer) != nil || answer.Status != "success" {
		return nil
	}
	return answer.Data.Result
}

// promQueryValues is promQuery's values as written; nothing on any error.
func promQueryValues(addr, query string) []string {
	var out []string
	for _, r := range promQuery(addr, query) {
		if v, ok := r.Value[1].(string); ok {
			out = append(out, v)
		}
	}
	return out
}

// needPrometheus skips a test under -short and fails it under CI where
// Debian's prometheus is missing; it returns the binary.
func needPrometheus(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end with Prometheus: not under -short")
	}
	const promBin = "/usr/bin/prometheus"
	if _, err := os.Stat(promBin); err != nil {
		timelinetest.Unavailable(t, "prometheus is not installed (.ci/run installs Debian's package)")
	}
	return promBin
}

// startPrometheus runs Prometheus with config (its prometheus.yml) and its
// data in dir, on a free loopback port, stopped when the test ends; it
// returns the address.
func startPrometheus(t *testing.T, promBin, dir, config string) string {
	t.Helper()
	return startPrometheusWith(t, promBin, dir, config)
}

// startPrometheusWith is startPrometheus with more flags.
func startPrometheusWith(t *testing.T, promBin, dir, config string, flags ...string) string {
	t.Helper()
	configPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeLoopbackAddr(t)
	args := append([]string{"--config.file=" + configPath,
		"--storage.tsdb.path=" + filepath.Join(dir, "tsdb"), "--web.listen-address=" + addr}, flags...)
	startGroup(t, filepath.Join(dir, "prometheus.log"), promBin, args...)
	return addr
}
