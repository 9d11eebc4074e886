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
