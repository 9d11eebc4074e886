package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// nvml-bench runs through go-nvml's mock under --demo, as CI runs it, and
// stays out of the usage: it checks gputop, it is not for its users.
func TestNVMLBenchThroughTheMock(t *testing.T) {
	te := newTestEnv()
	if code := run([]string{"nvml-bench", "--demo", "--calls", "20", "--paced-calls", "0", "--json"}, &te.env); code != exitOK {
		t.Fatalf("exit %d: %s", code, te.err.String())
	}
	var rep struct {
		GPUs  int `json:"gpus"`
		Calls []struct {
			Call    string  `json:"call"`
			Calls   int     `json:"calls"`
			Failed  int     `json:"failed"`
			Median  float64 `json:"median_us"`
			Skipped string  `json:"skipped"`
		} `json:"calls"`
		Checks []string `json:"checks"`
	}
	if err := json.Unmarshal([]byte(te.out.String()), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, te.out.String())
	}
	timed := 0
	for _, c := range rep.Calls {
		if c.Skipped == "" {
			timed++
			if c.Calls != 20 || c.Failed != 0 {
				t.Errorf("%s: %d calls, %d failed; want 20 and none", c.Call, c.Calls, c.Failed)
			}
		}
	}
	if rep.GPUs != 8 || timed < 30 || len(rep.Checks) == 0 {
		t.Errorf("%d GPUs, %d calls timed, %d checks; want 8, 30 or more, some", rep.GPUs, timed, len(rep.Checks))
	}

	usage := newTestEnv()
	run([]string{"--help"}, &usage.env)
	if strings.Contains(usage.out.String(), "nvml-bench") {
		t.Error("gputop --help lists the hidden nvml-bench")
	}
	help := newTestEnv()
	if code := run([]string{"nvml-bench", "--help"}, &help.env); code != exitOK || !strings.Contains(help.out.String(), "--calls N") {
		t.Errorf("nvml-bench --help: exit %d:\n%s", code, help.out.String())
	}
	bad := newTestEnv()
	if code := run([]string{"nvml-bench", "--calls", "0"}, &bad.env); code != exitUsage || strings.Count(bad.err.String(), "\n") != 1 {
		t.Errorf("--calls 0: exit %d, stderr %q; want 2 and one line", code, bad.err.String())
	}
}

// The bill of the real GPU: with the H100's measured costs (docs/real-gpu/),
// the schedule of a session at 1 s costs at most 800 µs of CPU per
// GPU-second in the GPU probe's calls, and at 250 ms at most 1,500 (the
// goals of docs/real-gpu.md); each call says how often it is made.
func TestNVMLBenchPredictsTheH100Bill(t *testing.T) {
	for _, c := range []struct {
		interval string
		goal     float64
		samples  float64 // GetSamples per GPU-second
		util     float64
	}{{"1s", 800, 0.1, 1}, {"250ms", 1500, 0.1, 4}} {
		te := newTestEnv()
		args := []string{"nvml-bench", "--demo", "--calls", "5", "--paced-calls", "0", "--json",
			"--costs", "docs/real-gpu/h100-2026-11-27.json", "--interval", c.interval}
		if code := run(args, &te.env); code != exitOK {
			t.Fatalf("exit %d: %s", code, te.err.String())
		}
		var rep struct {
			Interval  string   `json:"interval"`
			Predicted *float64 `json:"predicted_cpu_us_per_gpu_s"`
			Procs     *float64 `json:"predicted_procs_cpu_us_per_gpu_s"`
			CostsFrom string   `json:"costs_from"`
			Calls     []struct {
				Call      string   `json:"call"`
				PerGPU    *float64 `json:"per_gpu_per_s"`
				Predicted *float64 `json:"predicted_cpu_us_per_gpu_s"`
			} `json:"calls"`
		}
		if err := json.Unmarshal([]byte(te.out.String()), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Interval != c.interval || rep.Predicted == nil || *rep.Predicted > c.goal || *rep.Predicted < c.goal/4 ||
			rep.Procs == nil || !strings.Contains(rep.CostsFrom, "580.159.04") {
			t.Errorf("at %s: %+v; want the GPU probe's CPU under %v µs per GPU-second", c.interval, rep, c.goal)
		}
		per := map[string]float64{}
		for _, k := range rep.Calls {
			if k.PerGPU != nil {
				per[k.Call] = *k.PerGPU
			}
		}
		if per["nvmlDeviceGetSamples (since the last seen)"] != c.samples || per["nvmlDeviceGetUtilizationRates"] != c.util ||
			per["nvmlDeviceGetTotalEnergyConsumption"] == 0 || per["nvmlSystemGetDriverVersion"] != 0 {
			t.Errorf("at %s, calls per GPU-second: %v", c.interval, per)
		}
	}
	for _, bad := range [][]string{{"--costs", "docs/real-gpu.md"}, {"--costs", "no-such-file.json"}} {
		te := newTestEnv()
		if code := run(append([]string{"nvml-bench", "--demo", "--calls", "1"}, bad...), &te.env); code != exitError || strings.Count(te.err.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 1 and one line", bad, code, te.err.String())
		}
	}
	te := newTestEnv()
	if code := run([]string{"nvml-bench", "--interval", "0s"}, &te.env); code != exitUsage {
		t.Errorf("--interval 0s: exit %d; want 2", code)
	}
}
